"""Readers for the files of eval tools (Inspect AI logs), turned into the `ratings` format."""
