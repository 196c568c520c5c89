-- wrk script of `make bench`: cycle through pre-built requests read from a file, count statuses per thread.
--
--   wrk -t2 -c16 -d5s --latency -s benchmarks/bench_requests.lua URL -- REQUEST_FILE THREADS
--
-- REQUEST_FILE holds one request per line, tab-separated: method, path, body, then "Name: value" headers.
-- Thread k of THREADS takes lines k, k+THREADS, ... so no two threads send the same (signed, single-use)
-- delivery (a file with fewer lines than threads is sent whole by every thread). A thread that runs past its share starts over; done() reports that as `replayed`, because the
-- server must then answer 409 and the run no longer measures accepted deliveries.

local threads = {}

local function split_tabs(line)
  local fields, start = {}, 1
  while true do
    local stop = string.find(line, "\t", start, true)
    if not stop then
      table.insert(fields, string.sub(line, start))
      return fields
    end
    table.insert(fields, string.sub(line, start, stop - 1))
    start = stop + 1
  end
end

local function build(line)
  local fields = split_tabs(line)
  local headers = {}
  for i = 4, #fields do
    local name, value = string.match(fields[i], "^([^:]+):%s*(.*)$")
    headers[name] = value
  end
  local body = fields[3] ~= "" and fields[3] or nil
  return wrk.format(fields[1], fields[2], headers, body)
end

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

function init(args)
  local file, thread_count = args[1], tonumber(args[2])
  local all = {}
  for line in io.lines(file) do
    if line ~= "" then
      table.insert(all, line)
    end
  end
  requests, sent, non2xx, statuses = {}, 0, 0, {}
  for i, line in ipairs(all) do
    if (i - 1) % thread_count == thread_index then
      table.insert(requests, build(line))
    end
  end
  if #requests == 0 then  -- fewer lines than threads (a single GET): every thread sends them all
    for _, line in ipairs(all) do
      table.insert(requests, build(line))
    end
  end
  distinct = #requests
  if distinct == 0 then
    error("no requests in " .. file)
  end
end

function request()
  sent = sent + 1
  return requests[(sent - 1) % distinct + 1]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local total_non2xx, replayed, counts = 0, 0, {}
  for _, thread in ipairs(threads) do
    total_non2xx = total_non2xx + thread:get("non2xx")
    replayed = replayed + math.max(0, thread:get("sent") - thread:get("distinct"))
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(counts) do
    table.insert(parts, string.format('"%d": %d', status, count))
  end
  io.write(string.format(
    'BENCH_SUMMARY {"requests": %d, "duration_us": %d, "non2xx": %d, "replayed": %d, '
      .. '"p50_us": %d, "p99_us": %d, "max_us": %d, "statuses": {%s}}\n',
    summary.requests, summary.duration, total_non2xx, replayed,
    latency:percentile(50), latency:percentile(99), latency.max, table.concat(parts, ", ")))
end
