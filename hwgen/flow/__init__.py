"""From a component to files and measurements: ``verilog`` (Verilog and ``design.json``),
``simulate`` (cocotb on Verilator or Icarus), ``pnr`` (Yosys + nextpnr), ``board`` (the on-board
self-test and bitstreams), ``diagram`` (the task-graph drawing), ``tools`` (the YoWASP tools)."""
