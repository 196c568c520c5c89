"""Domain rules with no HTTP in them: restart, expansion, permissions, automations and CEL."""
