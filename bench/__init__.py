"""Benchmarks, each printing the ratios it measures."""
