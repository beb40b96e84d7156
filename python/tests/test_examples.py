"""The gradient-descent examples (python/examples) train through contact: the loss falls from
9.3 to below 2e-2 in 100 Adam iterations and the ball ends within 5 mm of its target, with the
same numbers in JAX and PyTorch."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))


@pytest.mark.parametrize("name", ["jax_push", "torch_push"])
def test_example_trains_through_contact(name):
    mod = __import__(name)
    loss, xs = mod.main(iterations=100)
    assert loss < 2e-2
    assert abs(float(xs[-1][0]) - mod.TARGET) < 5e-3
