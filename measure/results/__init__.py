"""The results file as a type: the model (``model``, ``sizes``), its JSON Schema (``schema``),
and what a result was measured for and where it stands now (``identity``).

Readers use these records' attributes, never the file's dict layout; ``measure.store`` reads
and writes the files.
"""

from measure.results.identity import (Staleness, carried_counters, counter_key, fingerprint, measured_part,
                                      measurement_fingerprint, staleness)
from measure.results.model import (FORMAT, EnvClocks, Envelope, EnvelopeSignature, Environment, Failure,
                                   FailureEnvironment, Method, MethodCheck, Result, parse,
                                   parse_measured)
from measure.results.schema import result_schema
from measure.results.sizes import (COPY_REGIONS, CopyFloor, CopyRegion, CounterPass, CounterSummary, CountersFrom,
                                   KernelCounters, KernelMetric, LaunchAttrs, MetricValue,
                                   Sampling, Size, SizeCheck, SizeClocks, Stats, Variant, VariantCounters)

__all__ = ["FORMAT", "Result", "Environment", "Method", "Size", "Variant", "Stats", "CopyFloor", "CopyRegion",
           "CounterSummary", "CounterPass", "VariantCounters", "KernelCounters", "SizeCheck", "SizeClocks",
           "Sampling", "EnvClocks", "MethodCheck", "Failure", "FailureEnvironment", "Envelope",
           "EnvelopeSignature", "COPY_REGIONS", "Staleness", "parse", "parse_measured", "result_schema", "staleness",
           "fingerprint", "measured_part", "measurement_fingerprint", "counter_key", "carried_counters",
           "CountersFrom", "KernelMetric", "LaunchAttrs", "MetricValue"]
