"""Host side of stria's VM test harness."""
