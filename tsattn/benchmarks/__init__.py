"""Benchmarks behind ``tsattn compare`` and ``tsattn bench``: library code that writes results."""
