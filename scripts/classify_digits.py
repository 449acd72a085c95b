"""Classify the held-out digits with `hwgen/examples/digits.py` in simulation or on a board.

Each problem carries B images; the weights are on chip (compile-time tables), so only the
images cross the line. Every image's logits and label are compared with the numpy integer model
(the example's ``reference``); the script prints the accuracy, images per second in simulation
(or on the board) and what the schedule gives at a clock of ``--fmax`` MHz. Run ``make digits``
(``IMAGES=``, ``PORT=``), or ``.venv/bin/python scripts/classify_digits.py --help``.
"""
import argparse
import os
import sys
import time

import numpy as np

from train_digits import split

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, os.pardir, "hwgen", "examples", "digits.py")


def classify(acc, images, batch):
    """Logits and labels of ``images`` on ``acc``, ``batch`` images a problem (the last
    problem padded with blank images, their results dropped)."""
    pad = -len(images) % batch
    padded = np.concatenate([images, np.zeros((pad, images.shape[1]), images.dtype)])
    outs = acc.run_many([{"X": padded[k:k + batch]} for k in range(0, len(padded), batch)])
    logits = np.concatenate([o["logits"] for o in outs])[:len(images)]
    return logits, np.concatenate([o["label"] for o in outs])[:len(images)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=360,
                        help="how many of the 360 held-out images (default: all)")
    parser.add_argument("--batch", type=int, default=8, help="images per problem (B)")
    parser.add_argument("--port", default="sim",
                        help="'sim' (Amaranth's simulator) or a board's serial port")
    parser.add_argument("--design-json",
                        help="with --port: the design.json of the bitstream on the board")
    parser.add_argument("--fmax", type=float, default=None,
                        help="MHz of a place-and-route (make timing), for images/s at that clock")
    args = parser.parse_args(argv)
    from hwgen.driver import Accelerator
    from hwgen.errors import HwgenError
    from hwgen.pipeline import load_module
    _, images, _, labels = split()
    if not 1 <= args.images <= len(images) or args.batch < 1:
        parser.error(f"--images takes 1..{len(images)} and --batch at least 1")
    images, labels = images[:args.images], labels[:args.images]
    try:
        if args.port == "sim":
            acc = Accelerator.simulate(EXAMPLE, params={"B": args.batch}, progress=True)
        elif args.design_json:
            acc = Accelerator.open(args.design_json, args.port, progress=True)
        else:
            parser.error("a board needs --design-json (make bitstream DESIGN=hwgen/examples/"
                         "digits.py writes it)")
        with acc:
            start = time.monotonic()
            logits, got = classify(acc, images, args.batch)
            wall = time.monotonic() - start
    except HwgenError as e:
        sys.exit(f"error: {e}")
    want = load_module(EXAMPLE).reference(images)
    exact = np.array_equal(logits, want["logits"]) and np.array_equal(got, want["label"])
    print(f"{len(images)} images: {'logits and labels equal numpy' if exact else 'MISMATCH'}"
          f", accuracy {np.mean(got == labels):.3f}")
    print(f"{wall:.0f} s, {len(images) / wall:.2f} images/s "
          f"({acc.stats['seconds'] * 1e3:.1f} ms of the line's time)")
    per_image = acc.manifest.interval_cycles / args.batch
    if args.fmax:
        print(f"at {args.fmax:g} MHz: {args.fmax * 1e6 / per_image:,.0f} images/s "
              f"({per_image:.0f} cycles an image back to back)")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
