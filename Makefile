# Two commands for a newcomer: `make run` and `make test`. Both create .venv and install
# the project (with its test tools) the first time, and again whenever pyproject.toml changes.

VENV   := .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install run test lint typecheck unit bench samples detector detector-tune detector-tune-window detector-blend sizer ghost-check demon-check knot-check model clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The web app at http://127.0.0.1:8000; on first start the sample photos are scored into
# the archive (instance/). `make run HOST=0.0.0.0` lets phones on your network in.
HOST ?= 127.0.0.1
PORT ?= 8000
run: install
	$(VENV)/bin/dicke-daemonen serve --host $(HOST) --port $(PORT) --instance instance --samples sample_images

lint: install
	$(VENV)/bin/ruff check .

typecheck: install
	$(VENV)/bin/mypy --strict engine cli synth webui vision calibration training/dataset.py

unit: install
	$(VENV)/bin/pytest

test: lint typecheck unit

bench: install
	$(PYTHON) benchmarks/engine.py
	$(PYTHON) benchmarks/synth.py
	$(PYTHON) benchmarks/speed.py
	$(PYTHON) benchmarks/accuracy.py --set sample_images

# Make sample_images/ again after changing the generator (tests check they reproduce).
samples: install
	$(PYTHON) -m synth.samples sample_images --overlays out/sample_overlays

# Torch lives in its own environment (the CPU build); the app never needs it.
# The CPU build comes from PyTorch's own index. Where that cannot be reached, pip gives
# it up after one short try and takes torch from the other indexes or wheel folders it
# is configured with (PIP_FIND_LINKS); `make detector TORCH_INDEX=` skips it.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TRAIN_VENV := .venv-train
TRAIN_STAMP := $(TRAIN_VENV)/.installed
$(TRAIN_STAMP): pyproject.toml
	python3 -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(TRAIN_VENV)/bin/python -m pip install --quiet --timeout 20 --retries 1 \
		$(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -e '.[train]'
	touch $(TRAIN_STAMP)

# Labelled examples for both learned parts (about 30 minutes on two cores).
out/train/.done: $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/train --count 2400 \
		--seed 1000000 --workers 2
	touch out/train/.done

# Train the pawn detector again (calibration/pawnnet.onnx) after changing the generator
# or the network: about 80 minutes of training on two cores after the examples.
detector: out/train/.done
	$(TRAIN_VENV)/bin/python -m training.train_detector --data out/train --steps 15000 \
		--batch 16 --held-out 40 --out calibration --checkpoint out/pawnnet.pt

# Go on training the shipped detector: 500 hard photos of green felt and the blue mat
# (where a cord or pawn has the table's hue) and 400 with a demon put down on each knot
# with a chance of 0.6, beside 755 of every table, the crops drawn four times as often
# round a crowded ghost (beside a pawn or touching a cord) or a knot beside a pawn:
# about 45 minutes of examples and 20 of training on two cores. Written to out/tuned/;
# then `make detector-blend`. It goes on from whatever calibration/ ships: the detector
# shipped from the eighteenth to the ninety-eighth session was commit 6ee2589's (which
# came from commit 56fb0b5's by two rounds, docs/reader-history.md, fourteenth and
# fifteenth sessions) tuned by this recipe and blended half and half with it; the one
# shipped now went on from there by `make detector-tune-window`. A finished out/pawnnet_tuned.pt
# is resumed (and stops at once): delete it to train again.
detector-tune: $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune --count 500 --seed 3100000 \
		--workers 2 --tables green_felt,blue_mat
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune --count 755 --seed 3000000 \
		--workers 2
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune --count 400 --seed 3300000 \
		--workers 2 --knot-cover 0.6
	$(TRAIN_VENV)/bin/python -m training.train_detector --data out/tune --steps 3000 \
		--batch 16 --lr 3e-4 --hard-weight 4 --held-out 40 --out out/tuned \
		--checkpoint out/pawnnet_tuned.pt --start-from calibration/pawnnet.onnx

# Go on training the shipped detector on lacquered pawns that mirror a window (as the
# dev photos' figures do): 450 hard photos of them on any table, 200 on green felt and
# the blue mat, 250 of every kind; about 25 minutes of examples and 50 of training on
# two cores, into out/tuned_win/, then blended half and half with the detector it
# started from into out/blended_win/. The detector shipped since the ninety-ninth session
# is this blend (docs/reader-history.md); copy out/blended_win/* into calibration/ once
# the benchmarks say it reads better. Once copied, do not run it again as it is: the
# finished checkpoint stops at once and the blend would blend with the blend (delete
# out/pawnnet_tuned_win.pt and start from the detector you mean to tune).
detector-tune-window: $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune_win --count 450 \
		--seed 3800000 --workers 2 --window-pawns
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune_win --count 200 \
		--seed 3950000 --workers 2 --window-pawns --tables green_felt,blue_mat
	$(TRAIN_VENV)/bin/python -m training.dataset --out out/tune_win --count 250 \
		--seed 3900000 --workers 2
	$(TRAIN_VENV)/bin/python -m training.train_detector --data out/tune_win --steps 3000 \
		--batch 16 --lr 3e-4 --hard-weight 4 --held-out 40 --out out/tuned_win \
		--checkpoint out/pawnnet_tuned_win.pt --start-from calibration/pawnnet.onnx
	$(TRAIN_VENV)/bin/python -m training.blend calibration/pawnnet.onnx \
		out/tuned_win/pawnnet.onnx --share 0.5 --out out/blended_win --data out/tune_win

# Blend the tuned detector (out/tuned/) with the one it was tuned from, half and half,
# weight by weight (training.blend: "WiSE-FT"), into out/blended/, with the blend's own
# figures on the tuning's held-out examples; copy both files into calibration/ once the
# benchmarks say it reads better (once: blending again after that would blend with the
# blend). The detector shipped now is such a blend (docs/reader.md, "The detector").
detector-blend: $(TRAIN_STAMP) out/tuned/pawnnet.onnx
	$(TRAIN_VENV)/bin/python -m training.blend calibration/pawnnet.onnx out/tuned/pawnnet.onnx \
		--share 0.5 --out out/blended --data out/tune

# Train the pawn sizer again (calibration/sizenet.onnx, vision.pawn_size): two generated
# sets of 210 photos to learn from and one held out, with seeds of their own (about 7
# minutes), then about 12 minutes of training on two cores.
SIZER_SEEDS := 270000 271000
SIZER_HELD_OUT := 272000
out/sizer/%/.done: | $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python benchmarks/accuracy.py --make-set out/sizer/$* --count 210 \
		--seed $* --only-make
	touch $@
sizer: $(foreach seed,$(SIZER_SEEDS) $(SIZER_HELD_OUT),out/sizer/$(seed)/.done)
	$(TRAIN_VENV)/bin/python -m training.train_sizer --epochs 12 --out calibration \
		--sets $(foreach seed,$(SIZER_SEEDS),out/sizer/$(seed)) --held-out out/sizer/$(SIZER_HELD_OUT)

# Train the ghost checker again (calibration/ghostnet.onnx, vision.ghost_check): four
# generated sets of 210 photos to learn from and one held out, with seeds of their own
# (about 15 minutes), then about 12 minutes of training on two cores.
GHOST_SEEDS := 900000 901000 902000 903000
GHOST_HELD_OUT := 904000
out/ghost/%/.done: | $(TRAIN_STAMP)
	$(TRAIN_VENV)/bin/python benchmarks/accuracy.py --make-set out/ghost/$* --count 210 \
		--seed $* --only-make
	touch $@
ghost-check: $(foreach seed,$(GHOST_SEEDS) $(GHOST_HELD_OUT),out/ghost/$(seed)/.done)
	$(TRAIN_VENV)/bin/python -m training.train_ghost_check --epochs 8 --out calibration \
		--sets $(foreach seed,$(GHOST_SEEDS),out/ghost/$(seed)) --held-out out/ghost/$(GHOST_HELD_OUT)

# Train the demon checker again (calibration/demonnet.onnx, vision.demon_check) on the
# ghost checker's generated sets (made by `make ghost-check`'s first steps): about 3
# minutes of crops, then about 10 minutes of training on two cores.
demon-check: $(foreach seed,$(GHOST_SEEDS) $(GHOST_HELD_OUT),out/ghost/$(seed)/.done)
	$(TRAIN_VENV)/bin/python -m training.train_demon_check --epochs 8 --out calibration \
		--sets $(foreach seed,$(GHOST_SEEDS),out/ghost/$(seed)) --held-out out/ghost/$(GHOST_HELD_OUT)

# Train the knot checker again (calibration/knotnet.onnx, vision.knot_check) on generated
# photos with seeds of their own: 300 hard and 150 normal with a demon put down on each
# knot with a chance of a half, 150 hard as the game left them, 300 hard on green felt
# and the blue mat with knots covered as often, 80 held out (about 30 minutes on one
# core, `make -j2` halves it), then about 35 minutes of training on two cores (half the
# crops put under cast shadows each time they are learnt from).
SYNTH_KNOTS := $(TRAIN_VENV)/bin/dicke-daemonen synth
out/knots/a/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/a --count 300 --seed 4000000 --difficulty hard --knot-cover 0.5
	touch $@
out/knots/b/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/b --count 150 --seed 4200000 --difficulty normal --knot-cover 0.5
	touch $@
out/knots/c/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/c --count 150 --seed 4300000 --difficulty hard
	touch $@
out/knots/d1/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/d1 --count 150 --seed 4400000 --difficulty hard --knot-cover 0.5 \
		--tables green_felt,blue_mat
	touch $@
out/knots/d2/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/d2 --count 150 --seed 4500000 --difficulty hard --knot-cover 0.5 \
		--tables green_felt,blue_mat
	touch $@
out/knots/held/.done: | $(TRAIN_STAMP)
	$(SYNTH_KNOTS) --out out/knots/held --count 40 --seed 4100000 --difficulty hard --knot-cover 0.5
	$(SYNTH_KNOTS) --out out/knots/held --count 40 --seed 4100040 --difficulty normal --knot-cover 0.3
	touch $@
KNOT_SETS := a b c d1 d2
knot-check: $(foreach set,$(KNOT_SETS) held,out/knots/$(set)/.done)
	$(TRAIN_VENV)/bin/python -m training.train_knot_check --epochs 5 --out calibration \
		--sets $(foreach set,$(KNOT_SETS),out/knots/$(set)) --held-out out/knots/held

# Train the experimental pixel classifier again (calibration/pixelnet.onnx): about 75
# minutes of training on two cores after the examples.
model: out/train/.done
	$(TRAIN_VENV)/bin/python -m training.train --data out/train --steps 8000 \
		--held-out 30 --out calibration --checkpoint out/pixelnet.pt

clean:
	rm -rf $(VENV) $(TRAIN_VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
