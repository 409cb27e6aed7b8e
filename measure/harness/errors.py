"""The one error the harness raises for a measurement it cannot make or trust."""


class MeasurementError(RuntimeError):
    """A measurement that cannot be trusted: compile error, wrong result, CUDA error."""
