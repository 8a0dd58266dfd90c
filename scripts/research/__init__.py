"""Research tools: command lines over the library's experiments (their logic is in agents/)."""
