"""Crash injection: FileIO wrappers that record, fail, kill or tear at a chosen IO step."""
