// Simulation model of the ECP5 DP16KD, as hwgen instantiates it (rtl/block_ram.py): port A
// writes (CEA and WEA), port B reads through its read register (CEB) and its output register
// (REGMODE_B = "OUTREG", OCEB); both ports have the same data width (1, 2, 4, 9 or 18 bits,
// the element address in the address bits above the width's shift; an 18-bit port's address
// bits 0 and 1 are its byte enables). Or, in pseudo-dual-port mode (DATA_WIDTH_A = 36, as
// Yosys maps a PDPW16KD, lattice/brams_map_16kd.v): port A writes 36 bits on CEA ({DIB, DIA},
// address bits 13..5, bits 3..0 the byte enables), port B reads 9 (address bits 13..3), 9-bit
// word 4 * w + e being bits 9 * e + 8..9 * e of 36-bit word w, or 36 ({DOB, DOA}, address bits
// 13..5; REGMODE_A = "OUTREG" too, OCEA = OCEB). A read of the address port A
// writes in the same cycle returns the old data. Yosys 0.70's model of the block has no
// behaviour (ecp5/cells_sim.v); Icarus and Verilator read this file, Yosys skips it
// (SYNTHESIS). Any other configuration stops the simulation rather than being modelled wrongly.
`ifndef SYNTHESIS
module DP16KD (
    input  wire DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input  wire ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input  wire CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
    output wire DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input  wire DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input  wire ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input  wire CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
    output wire DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
    parameter DATA_WIDTH_A = 18;
    parameter DATA_WIDTH_B = 18;
    parameter REGMODE_A = "NOREG";
    parameter REGMODE_B = "NOREG";
    parameter WRITEMODE_A = "NORMAL";
    parameter WRITEMODE_B = "NORMAL";
    parameter RESETMODE = "SYNC";
    parameter CSDECODE_A = "0b000";
    parameter CSDECODE_B = "0b000";
    parameter GSR = "ENABLED";
    localparam PDP = DATA_WIDTH_A == 36;
    localparam SHIFT = PDP || DATA_WIDTH_A == 9 ? 3 : DATA_WIDTH_A == 18 ? 4 :
                       DATA_WIDTH_A == 4 ? 2 : DATA_WIDTH_A == 2 ? 1 : 0;
    initial begin
        if (PDP ? ((DATA_WIDTH_B != 9 && DATA_WIDTH_B != 36) || REGMODE_A != "OUTREG")
                : (DATA_WIDTH_A != DATA_WIDTH_B || (DATA_WIDTH_A != 18 && DATA_WIDTH_A != 9
                   && DATA_WIDTH_A != 4 && DATA_WIDTH_A != 2 && DATA_WIDTH_A != 1)
                   || REGMODE_A != "NOREG")
                || REGMODE_B != "OUTREG" || CSDECODE_A != "0b000" || CSDECODE_B != "0b000") begin
            $display("DP16KD model: only equal data widths 1/2/4/9/18 with REGMODE_A NOREG, or widths 36/9 or 36/36 with REGMODE_A OUTREG; REGMODE_B OUTREG, CSDECODE 0b000");
            $finish;
        end
    end
    wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
    wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
    wire [13:0] wa = ada >> SHIFT, ra = adb >> SHIFT;
    wire [17:0] mask = PDP ? 18'h1ff : DATA_WIDTH_A == 18 ? {{9{ada[1]}}, {9{ada[0]}}}
                                          : (18'h3ffff >> (18 - DATA_WIDTH_A));
    reg  [17:0] mem [0:(16384 >> SHIFT) - 1];
    localparam WIDE = PDP && DATA_WIDTH_B == 36;
    reg  [35:0] rd = 36'd0, q = 36'd0;
    integer i;
    initial for (i = 0; i < (16384 >> SHIFT); i = i + 1) mem[i] = 18'd0;
    wire [35:0] di36 = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0, dia};
    always @(posedge CLKA)
        if (PDP) begin
            if (CEA && !{CSA2, CSA1, CSA0}) begin
                if (ada[0]) mem[{ada[13:5], 2'd0}] <= di36[8:0];
                if (ada[1]) mem[{ada[13:5], 2'd1}] <= di36[17:9];
                if (ada[2]) mem[{ada[13:5], 2'd2}] <= di36[26:18];
                if (ada[3]) mem[{ada[13:5], 2'd3}] <= di36[35:27];
            end
        end else if (CEA && WEA && !{CSA2, CSA1, CSA0}) mem[wa] <= (mem[wa] & ~mask) | (dia & mask);
    always @(posedge CLKB) begin
        if (RSTB) begin
            rd <= 36'd0; q <= 36'd0;
        end else begin
            if (CEB && !{CSB2, CSB1, CSB0})
                rd <= WIDE ? {mem[{adb[13:5], 2'd3}][8:0], mem[{adb[13:5], 2'd2}][8:0],
                              mem[{adb[13:5], 2'd1}][8:0], mem[{adb[13:5], 2'd0}][8:0]}
                           : mem[ra] & (18'h3ffff >> (18 - (PDP ? 9 : DATA_WIDTH_B)));
            if (OCEB) q <= rd;
        end
    end
    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = WIDE ? q[17:0] : 18'd0;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = WIDE ? q[35:18] : q[17:0];
endmodule
`endif
