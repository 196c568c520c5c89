"""Hand-written runtime of the access-governance contract: verification, signing, paging, storage, service."""
