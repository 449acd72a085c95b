"""The static schedule: from a checked task graph to the timing every later layer relies on.

Pure Python, the single source of every timing rule that ``rtl``, ``dataflow`` and ``mapping``
use:

- ``levels``: pipeline levels of one instance (``READ_LATENCY``, ``MULT_STAGES``);
- ``groups``: lockstep groups, the skew rule, link registers;
- ``cycles``: problem spacing and the cycle model (``compute_cycles``);
- ``static``: ``schedule(graph)``, the three above put together;
- ``recurrences``: the clocks per iteration of tasks whose updates take several clocks;
- ``host_timing``: lanes, buffer slots, steady-state interval and latency at the host ports;
- ``ports``: a group's memory and FIFO ports (which reads share a port);
- ``lines``: the delay lines carrying control from a group's controller to its members;
- ``plan``: ``plan(graph, lanes)``, everything the hardware is built from;
- ``depths``: FIFO depths at which no producer stalls, replanned from a plan.
"""
from .groups import Group, Schedule
from .levels import MULT_STAGES, READ_LATENCY, Levels
from .plan import Plan, plan
from .static import schedule

__all__ = ["Group", "Schedule", "Levels", "MULT_STAGES", "READ_LATENCY", "Plan", "plan",
           "schedule"]
