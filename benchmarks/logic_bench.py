"""make bench, multiplies in logic: gemm_os with every multiply in the fabric (``--dsps 0``:
carry-chain multipliers, ``rtl.multiply``) against the DSP build of the same array in the same
run: Fmax, LUT/FF per PE, cycles, MAC utilization, GOP/s and their ratios."""
from hwgen.flow.pnr import describe_path


def rows(results, arrays, kfactor):
    """One row per R x C array built both ways; a run that failed leaves its values None."""
    table = []
    for r, c in arrays:
        name, pes, K = f"{r}x{c}", r * c, kfactor * r
        row = {"array": name, "pes": pes, "K": K}
        for kind in ("logic", "gen"):
            t = results["timing"].get(f"{kind}_{name}", {})
            s = results["sim"].get(f"{kind}_{name}", {})
            fmax, cycles, used = t.get("fmax_mhz"), s.get("cycles"), t.get("used", {})
            row[kind] = {
                "fmax": fmax, "seeds": t.get("fmax_seeds"), "cycles": cycles,
                "expected": s.get("expected"), "sim_pass": s.get("pass", False),
                "lut_pe": used["LUT"] / pes if "LUT" in used else None,
                "ff_pe": used["FF"] / pes if "FF" in used else None, "dsp": used.get("DSP"),
                "util": K / cycles if cycles else None,
                "gops": 2 * pes * K * fmax / cycles / 1000 if fmax and cycles else None,
                "critical_path": t.get("critical_path")}
        logic, dsp = row["logic"], row["gen"]
        row["ratio"] = {k: logic[k] / dsp[k] if logic[k] and dsp[k] else None
                        for k in ("fmax", "lut_pe", "gops")}
        table.append(row)
    return table


def _f(v, p=2):
    return "-" if v is None else f"{v:.{p}f}"


def table(logic_rows):
    """The section of results.md: both builds per array, the ratios, the critical paths."""
    if not logic_rows:
        return []
    lines = ["", "## Multiplies in logic", "",
             "gemm_os with every multiply in logic (`--dsps 0`) against the DSP build of the "
             "same array in this run.", "",
             "| array | build | Fmax MHz | LUT/PE | FF/PE | DSP | cycles/problem (expected) | "
             "MAC util | GOP/s |", "|---|---|---|---|---|---|---|---|---|"]
    for row in logic_rows:
        for kind, name in (("logic", "in logic"), ("gen", "DSP blocks")):
            d = row[kind]
            ok = "" if d["sim_pass"] and d["cycles"] == d["expected"] else " MISMATCH"
            lines.append(f"| {row['array']} | {name} | {_f(d['fmax'], 1)} | "
                         f"{_f(d['lut_pe'], 1)} | {_f(d['ff_pe'], 1)} | {d['dsp']} | "
                         f"{d['cycles']} ({d['expected']}){ok} | {_f(d['util'], 3)} | "
                         f"{_f(d['gops'])} |")
    lines += ["", "| array | Fmax logic/DSP | LUT/PE logic/DSP | GOP/s logic/DSP |",
              "|---|---|---|---|"]
    lines += [f"| {row['array']} | {_f(row['ratio']['fmax'], 3)} | "
              f"{_f(row['ratio']['lut_pe'])} | {_f(row['ratio']['gops'], 3)} |"
              for row in logic_rows]
    lines += ["", *(f"- {row['array']} in logic: "
                    f"{describe_path(row['logic']['critical_path'])}" for row in logic_rows)]
    return lines
