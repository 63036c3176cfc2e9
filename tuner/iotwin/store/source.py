"""What produced a stored measurement: the simulator, a real run, or the twin executor."""

from typing import Literal

Source = Literal["sim", "real", "twin"]
