"""One module per operation of the contract: parse what the engine checked, call the domain, shape the response."""
