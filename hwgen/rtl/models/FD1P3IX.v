// Simulation model of the ECP5 FD1P3IX, as hwgen instantiates it (rtl/replica.py): a
// flip-flop with a clock enable (SP) and a synchronous clear (CD, over the enable) on the
// rising edge of CK, 0 at power-up (the global set/reset is never pulsed). Yosys maps the
// primitive itself (ecp5/cells_ff.h); the simulators (Icarus, Verilator) read this file,
// Yosys skips it (SYNTHESIS).
`ifndef SYNTHESIS
module FD1P3IX (input wire CK, input wire SP, input wire CD, input wire D, output reg Q);
    parameter GSR = "ENABLED";
    initial Q = 1'b0;
    always @(posedge CK) if (CD) Q <= 1'b0; else if (SP) Q <= D;
endmodule
`endif
