"""The hardware: a ``schedule.Plan`` elaborated into Amaranth components.

``top.Top(plan)`` is the accelerator; inside it, one ``group.Group`` per lockstep group (its
``controller``, ``delay`` lines, one ``datapath`` per member, ``local_array``s), an
``input_buffer`` per input tensor, an ``output_chain`` or ``output_banks`` per output tensor
(``output_buffer`` is their shared interface; ``walk`` counts beats and slots), and FIFOs.
``signatures`` holds the signatures between them, ``arith`` building blocks Yosys maps poorly on its
own, ``multiply`` the multiplies for the target (DSP blocks with their own registers),
``simhelpers`` a host in Amaranth's simulator, ``kinds`` the sharing of one module by the
modules of one structure (an array's PEs) in the Verilog. Every decision comes from the plan:
this layer only elaborates.
"""
