"""training.blend: two networks of one graph blended weight by weight."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from training.blend import blend_onnx, main
from vision.networks import Network


def conv_net(weight: np.ndarray, bias: np.ndarray) -> onnx.ModelProto:
    """One 3x3 convolution from 2 channels to 3, and a ReLU, as the exporter writes it."""
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["image", "w", "b"], ["conv"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["conv"], ["maps"]),
        ],
        "tiny",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 2, 8, 8])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 3, 8, 8])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def random_net(seed: int) -> tuple[onnx.ModelProto, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    weight = rng.normal(size=(3, 2, 3, 3)).astype(np.float32)
    bias = rng.normal(size=3).astype(np.float32)
    return conv_net(weight, bias), weight, bias


def run(model: onnx.ModelProto, image: np.ndarray) -> np.ndarray:
    """What the reader computes: ONNX Runtime on the serialised file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "net.onnx"
        path.write_bytes(model.SerializeToString())
        return Network(path).run(image)


def test_weights_are_the_weighted_mean():
    start, w0, b0 = random_net(0)
    tuned, w1, b1 = random_net(1)
    blended = blend_onnx(start, tuned, 0.25)
    weights = {w.name: numpy_helper.to_array(w) for w in blended.graph.initializer}
    np.testing.assert_allclose(weights["w"], 0.75 * w0 + 0.25 * w1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(weights["b"], 0.75 * b0 + 0.25 * b1, rtol=1e-6, atol=1e-6)
    assert weights["w"].dtype == np.float32
    # The inputs are left as they were.
    assert numpy_helper.to_array(start.graph.initializer[0]).tolist() == w0.tolist()


def test_the_ends_are_the_two_networks_and_opencv_runs_the_blend():
    start, _, _ = random_net(2)
    tuned, _, _ = random_net(3)
    image = np.random.default_rng(4).normal(size=(1, 2, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(run(blend_onnx(start, tuned, 0.0), image), run(start, image))
    np.testing.assert_allclose(run(blend_onnx(start, tuned, 1.0), image), run(tuned, image))
    # Before the ReLU a convolution is linear in its weights: the blend's output is
    # the blend of the outputs wherever both are positive.
    half = run(blend_onnx(start, tuned, 0.5), image)
    a, b = run(start, image), run(tuned, image)
    both = (a > 0) & (b > 0)
    assert both.sum() > 20
    np.testing.assert_allclose(half[both], (0.5 * a + 0.5 * b)[both], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("share", [-0.1, 1.5, float("nan"), float("inf"), True, "0.5"])
def test_share_outside_zero_to_one_is_refused(share):
    start, _, _ = random_net(5)
    with pytest.raises(ValueError, match="share must be a number within 0..1"):
        blend_onnx(start, start, share)


def test_a_numpy_share_is_a_number():
    start, w0, _ = random_net(11)
    tuned, w1, _ = random_net(12)
    weight = numpy_helper.to_array(blend_onnx(start, tuned, np.float32(0.5)).graph.initializer[0])
    np.testing.assert_allclose(weight, 0.5 * w0 + 0.5 * w1, rtol=1e-6, atol=1e-6)


def test_other_graphs_are_refused():
    start, _, _ = random_net(6)
    rng = np.random.default_rng(7)
    wider = conv_net(rng.normal(size=(4, 2, 3, 3)).astype(np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="weight 'w'"):
        blend_onnx(start, wider, 0.5)
    renamed = onnx.ModelProto()
    renamed.CopyFrom(start)
    renamed.graph.initializer[1].name = "bias"
    with pytest.raises(ValueError, match="differ in name"):
        blend_onnx(start, renamed, 0.5)
    # The same weights in another graph: a different network, not a blend of the two.
    other = onnx.ModelProto()
    other.CopyFrom(start)
    other.graph.node[1].op_type = "Sigmoid"
    with pytest.raises(ValueError, match="graphs differ"):
        blend_onnx(start, other, 0.5)


def test_command_writes_the_blend_and_says_what_it_is(tmp_path: Path):
    start, w0, _ = random_net(8)
    tuned, w1, _ = random_net(9)
    onnx.save(start, str(tmp_path / "start.onnx"))
    onnx.save(tuned, str(tmp_path / "tuned.onnx"))
    (tmp_path / "tuned.json").write_text('{"pawn_px": 24, "validation": {"recall": 1}}')
    out = tmp_path / "out"
    assert (
        main([str(tmp_path / "start.onnx"), str(tmp_path / "tuned.onnx"), "--out", str(out)]) == 0
    )
    written = onnx.load(str(out / "pawnnet.onnx"))
    weight = numpy_helper.to_array(written.graph.initializer[0])
    np.testing.assert_allclose(weight, 0.5 * w0 + 0.5 * w1, rtol=1e-6, atol=1e-6)
    meta = (out / "pawnnet.json").read_text()
    assert '"share": 0.5' in meta and '"pawn_px": 24' in meta
    assert "validation" not in meta  # the tuned network's figures are not the blend's


@pytest.mark.parametrize(
    "tuned_bytes, json_text, says",
    [
        (b"\xff\x00 not a network", "{}", "is not an ONNX network"),
        (b"", "{}", "holds no network"),  # an empty file parses as an empty network
        (None, None, "tuned.json"),  # the tuned network without its description
        (None, "{not json", "Expecting property name"),
    ],
)
def test_command_refuses_bad_input_and_writes_nothing(
    tmp_path: Path, capsys, tuned_bytes, json_text, says
):
    start, _, _ = random_net(10)
    tuned, _, _ = random_net(13)
    onnx.save(start, str(tmp_path / "start.onnx"))
    if tuned_bytes is None:
        onnx.save(tuned, str(tmp_path / "tuned.onnx"))
    else:
        (tmp_path / "tuned.onnx").write_bytes(tuned_bytes)
    if json_text is not None:
        (tmp_path / "tuned.json").write_text(json_text)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "start.onnx"), str(tmp_path / "tuned.onnx"), "--out", str(out)])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_command_does_not_write_over_its_inputs(tmp_path: Path, capsys):
    start, _, _ = random_net(14)
    onnx.save(start, str(tmp_path / "start.onnx"))
    onnx.save(start, str(tmp_path / "tuned.onnx"))
    (tmp_path / "tuned.json").write_text("{}")
    before = (tmp_path / "tuned.onnx").read_bytes()
    with pytest.raises(SystemExit):
        main([str(tmp_path / "start.onnx"), str(tmp_path / "tuned.onnx"), "--out", str(tmp_path)])
    assert "must not be the folder" in capsys.readouterr().err
    assert (tmp_path / "tuned.onnx").read_bytes() == before


def test_a_failed_validation_leaves_no_network_behind(tmp_path: Path, capsys):
    # Validation needs the training environment and examples: without either (here
    # an empty folder, or no torch) the command fails, and nothing is written.
    start, _, _ = random_net(15)
    tuned, _, _ = random_net(16)
    onnx.save(start, str(tmp_path / "start.onnx"))
    onnx.save(tuned, str(tmp_path / "tuned.onnx"))
    (tmp_path / "tuned.json").write_text("{}")
    (tmp_path / "examples").mkdir()
    out = tmp_path / "out"
    args = [str(tmp_path / "start.onnx"), str(tmp_path / "tuned.onnx"), "--out", str(out)]
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--data", str(tmp_path / "examples")])
    assert exit_.value.code == 2
    assert "validating on" in capsys.readouterr().err
    assert not any(out.iterdir())
