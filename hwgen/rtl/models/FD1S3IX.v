// Simulation model of the ECP5 FD1S3IX, as hwgen instantiates it (rtl/replica.py): a
// flip-flop with a synchronous clear (CD) on the rising edge of CK, 0 at power-up (the global
// set/reset is never pulsed). Yosys maps the primitive itself (ecp5/cells_ff.h); the
// simulators (Icarus, Verilator) read this file, Yosys skips it (SYNTHESIS).
`ifndef SYNTHESIS
module FD1S3IX (input wire CK, input wire CD, input wire D, output reg Q);
    parameter GSR = "ENABLED";
    initial Q = 1'b0;
    always @(posedge CK) if (CD) Q <= 1'b0; else Q <= D;
endmodule
`endif
