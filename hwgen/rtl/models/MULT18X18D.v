// Simulation model of the ECP5 MULT18X18D, as hwgen instantiates it (rtl/multiply.py): input,
// pipeline and output registers on CLK0 / CE0 / RST0 (synchronous reset), P = A x B with each
// operand signed when its SIGNEDx pin is high. Yosys 0.70 ships the block only as a black box
// (ecp5/cells_bb.v); Icarus and Verilator read this file, Yosys skips it (SYNTHESIS). Any other
// configuration stops the simulation rather than being modelled wrongly.
`ifndef SYNTHESIS
module MULT18X18D (
    input  wire A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17,
    input  wire B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17,
    input  wire SIGNEDA, SIGNEDB, CLK0, CE0, RST0,
    output wire P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34, P35
);
    parameter REG_INPUTA_CLK = "NONE";
    parameter REG_INPUTB_CLK = "NONE";
    parameter REG_PIPELINE_CLK = "NONE";
    parameter REG_OUTPUT_CLK = "NONE";
    initial begin
        if (REG_INPUTA_CLK != "CLK0" || REG_INPUTB_CLK != "CLK0" || REG_PIPELINE_CLK != "CLK0"
                || REG_OUTPUT_CLK != "CLK0") begin
            $display("MULT18X18D model: only REG_INPUTA/INPUTB/PIPELINE/OUTPUT_CLK = CLK0");
            $finish;
        end
    end
    wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
    wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
    reg  [17:0] a_r = 18'd0, b_r = 18'd0;
    reg         sa_r = 1'b0, sb_r = 1'b0;
    reg  [35:0] m_r = 36'd0, p_r = 36'd0;
    wire [35:0] ax = {{18{sa_r & a_r[17]}}, a_r};
    wire [35:0] bx = {{18{sb_r & b_r[17]}}, b_r};
    always @(posedge CLK0) begin
        if (RST0) begin
            a_r <= 18'd0; b_r <= 18'd0; sa_r <= 1'b0; sb_r <= 1'b0; m_r <= 36'd0; p_r <= 36'd0;
        end else if (CE0) begin
            a_r <= a; b_r <= b; sa_r <= SIGNEDA; sb_r <= SIGNEDB;
            m_r <= ax * bx;
            p_r <= m_r;
        end
    end
    assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p_r;
endmodule
`endif
