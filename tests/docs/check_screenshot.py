#!/usr/bin/python3
"""Proves that scripts/make-screenshots.sh still makes a screenshot.

    check_screenshot.py --script scripts/make-screenshots.sh --pto-studio BIN
                        [--shot NAME.png] [--size WxH]

Runs the script for one of its screenshots into a temporary folder and checks
that the file is a PNG of the window's size. Exit 0 when it is, 1 otherwise.
Standard library only; runs with Debian's /usr/bin/python3.
"""

import argparse
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def png_size(path):
    data = path.read_bytes()[:32]
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True)
    parser.add_argument("--pto-studio", required=True)
    parser.add_argument("--shot", default="summary.png", help="one of the script's `shot NAME.png` lines")
    parser.add_argument("--size", default="1600x1000", help="the size the script renders at")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pto-screenshot-test-") as folder:
        result = subprocess.run(["bash", args.script, folder, args.pto_studio, args.shot],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=150)
        image = Path(folder) / args.shot
        if result.returncode != 0:
            print(result.stdout)
            print(f"check_screenshot: {args.script} {args.shot} exited {result.returncode}")
            return 1
        if not image.exists():
            print(result.stdout)
            print(f"check_screenshot: {args.script} exited 0 but wrote no {args.shot}")
            return 1
        size = png_size(image)
        if size != (width, height):
            print(f"check_screenshot: {image.name} is {'not a PNG' if size is None else '%dx%d' % size}, expected a {width}x{height} PNG")
            return 1
        print(f"check_screenshot: {args.shot}, {width}x{height}, {image.stat().st_size} bytes, in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
