"""spyre_sim: the simulator's libraries from Python (spyre_sim._core, docs/python.md), and
a PyTorch front end: `compile` also takes an nn.Module and example inputs (spyre_sim.fx_import)."""
from ._core import SpyreError, calibrate, check, run, sweep, validate, workloads
from ._core import compile as _compile_graph

__all__ = ["SpyreError", "calibrate", "check", "compile", "run", "sweep", "validate", "workloads"]


def compile(output_or_module, *args, **kwargs):
    """compile(OUTPUT, graph=... | workload=..., ...): a graph file or built-in workload into OUTPUT.

    compile(module, example_inputs, output=None, ...): a torch.nn.Module traced at the aten
    level, mapped to a graph and compiled; returns a spyre_sim.fx_import.CompiledModule whose
    run(*inputs) runs it on the simulated card (see fx_import.compile_module)."""
    if hasattr(output_or_module, "forward") and hasattr(output_or_module, "parameters"):
        from . import fx_import

        return fx_import.compile_module(output_or_module, *args, **kwargs)
    return _compile_graph(output_or_module, *args, **kwargs)
