// Simulation model of the ECP5 CCU2C, as hwgen instantiates it (rtl/arith.py): two carry-chain
// halves; half i computes the propagate P = LUT4(INITi)[{Di, Ci, Bi, Ai}] and the generate
// G = INITi[{Bi, Ai}] (the LUT2 of the table's low bits), the sum P ^ carry-in and the carry
// out P ? carry-in : G. INJECT1 "NO" only (the carry-in is used). Yosys maps the primitive
// itself; the simulators (Icarus, Verilator) read this file, Yosys skips it (SYNTHESIS).
// tests/rtl/test_arith.py holds it equal to Yosys's own model (lattice/ccu2c_sim.vh).
`ifndef SYNTHESIS
module CCU2C (input wire CIN, input wire A0, B0, C0, D0, A1, B1, C1, D1,
              output wire S0, S1, COUT);
    parameter [15:0] INIT0 = 16'h0000;
    parameter [15:0] INIT1 = 16'h0000;
    parameter INJECT1_0 = "NO";
    parameter INJECT1_1 = "NO";
    initial if (INJECT1_0 != "NO" || INJECT1_1 != "NO") begin
        $display("CCU2C model: INJECT1 \"NO\" only");
        $finish;
    end
    wire p0 = INIT0[{D0, C0, B0, A0}], g0 = INIT0[{B0, A0}];
    wire p1 = INIT1[{D1, C1, B1, A1}], g1 = INIT1[{B1, A1}];
    wire c1 = p0 ? CIN : g0;
    assign S0 = p0 ^ CIN;
    assign S1 = p1 ^ c1;
    assign COUT = p1 ? c1 : g1;
endmodule
`endif
