"""The benchmarks behind ``referee bench`` (rules, service, projections): measuring tools, not
part of the service. Results and the machines they ran on are in BENCHMARKS.md."""
