"""A variant's prepared steps as one region over several streams, or as a CUDA graph.

``Program`` enqueues the steps on their named streams: ``main`` is the session's stream (the one
the blocking kernel holds and the start and stop events are recorded on); every other stream
waits for an event recorded on ``main`` first and is joined back into ``main`` at the end, so the
timed region spans every stream, from the first start to the last end.  A step with ``after``
waits for the last recorded event of each step it names.  ``serial`` enqueues the same steps in
order on ``main`` alone: the serial twin the overlap is measured against.

``GraphReplay`` captures a program once into a CUDA graph through NVIDIA's Python bindings
(cuda-bindings: cuStreamBeginCapture on pycuda's own stream handle, in pycuda's current context),
instantiates it (once untimed, then the median of INSTANTIATIONS timed calls), and replays it with
cuGraphLaunch; it keeps the graph's node count, the instantiation times and the host time of every
replay call.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from measure.harness.errors import MeasurementError
from measure.spec.steps import MAIN_STREAM

# Timed instantiations of a graph after its warm-up one (measure.GRAPH_INSTANTIATION names the method).
INSTANTIATIONS = 5
SERIAL = "·serial"  # the serial twin's region: the variant's name and this


class StepList(list):
    """A variant's prepared calls; ``runner``, where set, is how the check runs them as they will be
    timed: its Program (several streams) or its GraphReplay; ``fills``, where set, the untimed fills
    (``measure.harness.fills``) run before each run of them."""
    runner: Any = None
    fills: Any = None


class Program:
    """A variant's steps on their streams, with the events between them."""

    def __init__(self, gpu: Any, calls: list[Any]) -> None:
        drv = gpu.drv
        self.gpu, self.calls = gpu, calls
        names = list(dict.fromkeys([MAIN_STREAM] + [c.stream for c in calls]))
        self.streams = {name: gpu.stream if name == MAIN_STREAM else drv.Stream() for name in names}
        flags = drv.event_flags.DISABLE_TIMING
        waited = {a for c in calls for a in c.after}
        self.events = {name: drv.Event(flags) for name in waited}
        self.fork = drv.Event(flags)
        self.joins = {name: drv.Event(flags) for name in names if name != MAIN_STREAM}

    @property
    def multi_stream(self) -> bool:
        return len(self.streams) > 1

    def enqueue(self) -> None:
        main = self.streams[MAIN_STREAM]
        if self.joins:
            self.fork.record(main)
            for name in self.joins:
                self.streams[name].wait_for_event(self.fork)
        for call in self.calls:
            stream = self.streams[call.stream]
            for name in call.after:
                stream.wait_for_event(self.events[name])
            call.launch(stream)
            if call.id in self.events:
                self.events[call.id].record(stream)
        for name, event in self.joins.items():
            event.record(self.streams[name])
            main.wait_for_event(event)

    def serial(self) -> None:
        main = self.streams[MAIN_STREAM]
        for call in self.calls:
            call.launch(main)


class GraphReplay:
    """A program captured once into a CUDA graph, replayed as the timed region."""

    def __init__(self, program: Program, label: str) -> None:
        try:
            from cuda.bindings import driver as cu
        except Exception as err:
            raise MeasurementError(f"{label}: a graph variant needs cuda-bindings (pip install cuda-bindings), "
                                   f"which cannot be imported: {err}") from None
        self.cu, self.label = cu, label
        gpu = program.gpu
        self.stream = cu.CUstream(int(gpu.stream.handle))
        gpu.ctx.synchronize()
        self._check(cu.cuStreamBeginCapture(self.stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL),
                    "cuStreamBeginCapture")
        try:
            program.enqueue()
        finally:
            err, graph = cu.cuStreamEndCapture(self.stream)
        self._check((err,), "cuStreamEndCapture")
        self.graph = graph
        err, _, count = cu.cuGraphGetNodes(graph, 0)
        self.nodes = int(count) if int(err) == 0 else None
        self.instantiate_samples_ms = self._instantiate(graph)
        self.instantiate_ms = statistics.median(self.instantiate_samples_ms)
        self.host_s: list[float] = []

    def _instantiate(self, graph: Any) -> list[float]:
        """Instantiate the graph once untimed (the first call pays first-use costs: a warm-up, never
        data), then INSTANTIATIONS times timed, keeping the last executable; the timed calls' ms."""
        cu = self.cu
        err, warm = cu.cuGraphInstantiate(graph, 0)
        self._check((err,), "cuGraphInstantiate")
        self._check(cu.cuGraphExecDestroy(warm), "cuGraphExecDestroy")
        times = []
        for i in range(INSTANTIATIONS):
            started = time.perf_counter()
            err, executable = cu.cuGraphInstantiate(graph, 0)
            times.append((time.perf_counter() - started) * 1e3)
            self._check((err,), "cuGraphInstantiate")
            if i < INSTANTIATIONS - 1:
                self._check(cu.cuGraphExecDestroy(executable), "cuGraphExecDestroy")
            else:
                self.exec = executable
        return times

    def _check(self, result: Any, what: str) -> None:
        err = result[0] if isinstance(result, tuple) else result
        if int(err) != 0:
            raise MeasurementError(f"{self.label}: {what} failed: {err}")

    def launch(self) -> None:
        """Replay the graph on the session's stream; the host time of the call is kept."""
        started = time.perf_counter()
        (err,) = self.cu.cuGraphLaunch(self.exec, self.stream)
        self.host_s.append(time.perf_counter() - started)
        if int(err) != 0:
            raise MeasurementError(f"{self.label}: cuGraphLaunch failed: {err}")

    def record(self) -> dict:
        """The graph's record: its nodes, how long it took to instantiate, the replay call's host cost."""
        samples = sorted(self.host_s)
        median = samples[len(samples) // 2] * 1e6 if samples else None
        return {"nodes": self.nodes, "instantiate_ms": round(self.instantiate_ms, 4),
                "instantiate_samples_ms": [round(t, 4) for t in self.instantiate_samples_ms],
                "host_launch_us": median, "replays": len(samples)}

    def close(self) -> None:
        cu = self.cu
        for fn, handle in ((cu.cuGraphExecDestroy, getattr(self, "exec", None)),
                           (cu.cuGraphDestroy, getattr(self, "graph", None))):
            if handle is not None:
                try:
                    fn(handle)
                except Exception:
                    pass
