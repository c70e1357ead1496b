"""Benchmarks run by ``tsattn bench``: library code that writes CSV, markdown and plots."""
