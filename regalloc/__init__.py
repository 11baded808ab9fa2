"""Register allocation: liveness over the control-flow graph and virtual -> physical
register assignment under the ISA's rules. Works on the abstract `Program` (program.py)
that dsl/ builds from a Kernel; imports nothing but isa."""
from .assign import FILE_NAMES, Allocation, AllocationError, RegisterPressureError, allocate
from .limits import RegisterLimits, limits
from .liveness import Liveness, analyze
from .program import Program, Step, Ref, Virtual, blocks

__all__ = ["Allocation", "AllocationError", "RegisterPressureError", "allocate", "RegisterLimits", "limits",
           "Liveness", "analyze", "Program", "Step", "Ref", "Virtual", "blocks"]
