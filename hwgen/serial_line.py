"""A byte transport on a serial port (pyserial): what ``driver.Accelerator`` talks to a board
over."""
import time

from .errors import HwgenError


class SerialLine:
    """A byte transport on a serial port (pyserial), for `Accelerator`."""

    def __init__(self, port, baud):
        import serial                                   # only needed for a board
        try:
            self._port = serial.Serial(port, int(baud), timeout=0)
        except (serial.SerialException, ValueError) as e:
            raise HwgenError(f"cannot open serial port {port!r} at {int(baud)} baud: {e}") from None

    def write(self, data):
        self._port.write(data)

    def read(self, timeout):
        self._port.timeout = timeout
        first = self._port.read(1)
        return first + self._port.read(self._port.in_waiting) if first else b""

    def now(self):
        return time.monotonic()

    def close(self):
        self._port.close()
