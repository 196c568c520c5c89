"""`metrics.RequestRecorder` exposes what prometheus-client's Counter and Histogram expose for the same requests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from accessgov.observability import metrics
from accessgov.observability.metrics import REQUEST_SECONDS_BUCKETS, RequestRecorder

REQUESTS = st.lists(
    st.tuples(
        st.sampled_from(["svc.List", "svc.Receive", 'odd "op"\\n']),
        st.sampled_from([200, 401, 409, 500]),
        st.one_of(st.sampled_from([0.0, *REQUEST_SECONDS_BUCKETS]), st.floats(0, 20, allow_nan=False)),
    ),
    max_size=40,
)


def samples(registry: CollectorRegistry) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
    """Every sample but the creation times (the recorder's are its own first observations)."""
    text = generate_latest(registry).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items())), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.name.endswith("_created")
    }


@pytest.mark.slow
@given(REQUESTS)
def test_the_same_samples_as_a_counter_and_a_histogram(requests: list[tuple[str, int, float]]) -> None:
    expected, recorded = CollectorRegistry(), CollectorRegistry()
    counter = Counter(metrics.REQUESTS_NAME, metrics.REQUESTS_HELP, ["operation", "status"], registry=expected)
    histogram = Histogram(
        metrics.REQUEST_SECONDS_NAME,
        metrics.REQUEST_SECONDS_HELP,
        ["operation"],
        buckets=REQUEST_SECONDS_BUCKETS,
        registry=expected,
    )
    recorder = RequestRecorder()
    recorded.register(recorder)
    for operation, status, seconds in requests:
        counter.labels(operation, str(status)).inc()
        histogram.labels(operation).observe(seconds)
        recorder.observe(operation, status, seconds)
    assert samples(recorded) == samples(expected)


def test_created_is_the_first_observation_of_each_label_set() -> None:
    registry = CollectorRegistry()
    recorder = RequestRecorder()
    registry.register(recorder)
    recorder.observe("svc.List", 200, 0.002)
    created: dict[str, Any] = {
        sample.name: sample.value
        for family in text_string_to_metric_families(generate_latest(registry).decode())
        for sample in family.samples
        if sample.name.endswith("_created")
    }
    assert created == {"accessgov_http_requests_created": recorder.counts[("svc.List", 200)][1]}


def test_a_single_process_records_into_the_recorder() -> None:
    """Without PROMETHEUS_MULTIPROC_DIR (the test process) requests go to the recorder in the default registry."""
    recorder = metrics._request_metrics()
    assert isinstance(recorder, RequestRecorder)
    before = recorder.counts.get(("test.Op", 204), [0])[0]
    metrics.observe_request("test.Op", 204, 0.001)
    assert recorder.counts[("test.Op", 204)][0] == before + 1
    assert b'accessgov_http_requests_total{operation="test.Op",status="204"}' in metrics.render()[0]
