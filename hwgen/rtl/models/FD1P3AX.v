// Simulation model of the ECP5 FD1P3AX, as hwgen instantiates it (rtl/replica.py): a
// flip-flop with a clock enable (SP) on the rising edge of CK, 0 at power-up (the global
// set/reset is never pulsed). Yosys maps the primitive itself (ecp5/cells_ff.h); the
// simulators (Icarus, Verilator) read this file, Yosys skips it (SYNTHESIS).
`ifndef SYNTHESIS
module FD1P3AX (input wire CK, input wire SP, input wire D, output reg Q);
    parameter GSR = "ENABLED";
    initial Q = 1'b0;
    always @(posedge CK) if (SP) Q <= D;
endmodule
`endif
