// Result page: tap a field to see what it holds or add a creature there; tap a creature
// to change or remove it; tap a knot, then where it really lies on its loop, to move it
// (a loop with no knot: "Place it" in the list of checks); "Redraw a loop", then drag
// along where a loop really runs, to mend a stretch the camera traced astray.
// Corrections are sent as a plain form post (op, creature, colour, x, y, path, and the
// board version the page was rendered from: an edit from a page older than the board is
// refused, as its creature numbers may name other creatures now), so the
// server re-scores and the page shows what changed.
(function () {
  "use strict";
  const svg = document.getElementById("overlay");
  const sheet = document.getElementById("sheet");
  if (!svg || !sheet) return;
  const fields = JSON.parse(document.getElementById("fields-data").textContent);
  const creatures = JSON.parse(document.getElementById("creatures-data").textContent);
  const stretchesData = document.getElementById("stretches-data");
  // Per loop colour, its stretches between crossings (where a knot may lie).
  const stretches = stretchesData ? JSON.parse(stretchesData.textContent) : {};
  const editable = svg.dataset.editable === "yes";
  // A board whose lines break the rules cannot be built again with its knot moved.
  const knotsMovable = editable && svg.dataset.knotsMovable === "yes";
  const body = document.getElementById("sheet-body");
  const form = document.getElementById("edit-form");
  const PAINT = { red: "#d7263d", yellow: "#f4c20d", green: "#1f9d55", blue: "#1e63d6", white: "#ffffff" };
  const CHOICES = [["red", "red demon"], ["yellow", "yellow demon"], ["green", "green demon"],
                   ["blue", "blue demon"], ["white", "ghost"]];

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function svgPoint(event) {
    const p = svg.createSVGPoint();
    p.x = event.clientX; p.y = event.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }

  // The colour of the knot being moved: the next tap on the board says where it lies.
  // Showing anything else in the sheet puts it down.
  let movingKnot = null;
  // The id of the creature being moved: the next tap says where it stands.
  let movingCreature = null;

  // One correction per page: a second tap before the reload sends nothing.
  let submitting = false;

  function submit(values) {
    movingKnot = null;
    movingCreature = null;
    drawing = null;
    if (submitting) return;
    submitting = true;
    Object.keys(values).forEach(function (k) { form.elements[k].value = values[k]; });
    form.submit();
  }

  function choiceButtons(label, current, onChoose) {
    const box = el("div", undefined, "choices");
    CHOICES.forEach(function (choice) {
      if (choice[0] === current) return;
      const button = el("button");
      button.type = "button";
      button.dataset.colour = choice[0];
      const dot = el("span", undefined, "dot");
      dot.style.background = PAINT[choice[0]];
      button.append(dot, choice[1]);
      button.addEventListener("click", function () { onChoose(choice[0]); });
      box.append(button);
    });
    body.append(el("p", label), box);
  }

  function clearSelection() {
    svg.querySelectorAll(".selected").forEach(function (n) { n.classList.remove("selected"); });
    svg.querySelectorAll(".tap-mark").forEach(function (n) { n.remove(); });
    highlight(null);
    ringAt(null);
  }

  // A cross where the player tapped, so they see where a new creature would go.
  function markTap(point) {
    const box = svg.viewBox.baseVal;
    const r = Math.max(box.width, box.height) / 60;
    const mark = document.createElementNS("http://www.w3.org/2000/svg", "path");
    mark.setAttribute("class", "tap-mark");
    mark.setAttribute("d", "M" + (point.x - r) + " " + point.y + "h" + 2 * r +
                      "M" + point.x + " " + (point.y - r) + "v" + 2 * r);
    svg.append(mark);
  }

  function open() { sheet.hidden = false; }
  // Puts down what the next tap or drag was for: a knot or creature being moved, a stroke.
  function putDown() { movingKnot = null; movingCreature = null; stopDrawing(); }
  function close() { sheet.hidden = true; clearSelection(); putDown(); }

  // Redrawing a loop: {colour, points, stroke (the SVG polyline), down (a drag is on)}.
  // While it is set the board takes drags, not taps, and the page does not scroll.
  let drawing = null;
  const LOOPS = ["red", "yellow", "green", "blue"];
  // The page sends at most this many points of a stroke (the server takes 2000).
  const MAX_STROKE_POINTS = 1500;

  function stopDrawing() {
    showReplaced(null);
    if (drawing && drawing.stroke) drawing.stroke.remove();
    drawing = null;
    svg.classList.remove("drawing");
    svg.querySelectorAll(".loop-chosen").forEach(function (n) { n.classList.remove("loop-chosen"); });
  }

  function chooseLoopToRedraw() {
    putDown();
    clearSelection();
    body.replaceChildren(el("h3", "Redraw a loop"),
      el("p", "Which loop did the camera trace astray?"));
    const box = el("div", undefined, "choices");
    LOOPS.forEach(function (colour) {
      if (!svg.querySelector('polygon[data-loop="' + colour + '"]')) return;
      const button = el("button");
      button.type = "button";
      button.dataset.loop = colour;
      const dot = el("span", undefined, "dot");
      dot.style.background = PAINT[colour];
      button.append(dot, colour + " loop");
      button.addEventListener("click", function () { redrawLoop(colour); });
      box.append(button);
    });
    body.append(box);
    open();
  }

  function redrawLoop(colour) {
    putDown();
    clearSelection();
    drawing = { colour: colour, points: [], stroke: null, down: false };
    svg.classList.add("drawing");
    const loop = svg.querySelector('polygon[data-loop="' + colour + '"]');
    if (loop) loop.classList.add("loop-chosen");
    body.replaceChildren(el("p", "Draw where the " + colour + " loop really runs: start on it " +
      "where it is read right, follow the cord, and end on it again. A stroke back to its " +
      "start replaces the whole loop.", "strong"));
    open();
  }

  // The stretch of the loop a stroke would replace, dashed on the board.
  let replaced = null;
  function showReplaced(points) {
    if (replaced) { replaced.remove(); replaced = null; }
    if (!points) return;
    const box = svg.viewBox.baseVal;
    replaced = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    replaced.setAttribute("class", "replaced");
    replaced.setAttribute("points", points.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
    replaced.setAttribute("fill", "none");
    replaced.setAttribute("stroke", "#111");
    replaced.setAttribute("stroke-width", String(Math.max(box.width, box.height) / 1000 * 7));
    replaced.setAttribute("stroke-dasharray", String(Math.max(box.width, box.height) / 1000 * 10));
    replaced.setAttribute("pointer-events", "none");
    svg.append(replaced);
  }

  function drawAgainButton(colour) {
    const again = el("button", "Draw again");
    again.type = "button";
    again.addEventListener("click", function () { redrawLoop(colour); });
    return again;
  }

  // The server says which stretch the stroke replaces (and the other it could), so the
  // player sees it, dashed, before anything is sent.
  function strokeDrawn() {
    const d = drawing;
    // The stroke as it is checked is the stroke sent: rounded once, frozen.
    const path = d.points.map(function (p) { return [+p.x.toFixed(1), +p.y.toFixed(1)]; });
    // Which stroke this answer is for: a new one drawn meanwhile makes it stale.
    const check = d.check;
    const current = function () { return drawing === d && d.check === check && !d.down; };
    body.replaceChildren(el("p", "Checking the stroke…"));
    fetch(sheet.dataset.loopChoices, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Requested-With": "board.js" },
      body: JSON.stringify({ colour: d.colour, path: path }),
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).then(function (result) {
      if (!current()) return;
      if (!result.ok) {
        body.replaceChildren(el("p", "That stroke cannot redraw the loop: " + result.answer.error, "error"));
        body.append(drawAgainButton(d.colour));
        return;
      }
      offerStroke(d, path, result.answer.choices);
    }).catch(function () {
      if (!current()) return;
      body.replaceChildren(el("p", "The stroke could not be checked; draw it again.", "error"));
      body.append(drawAgainButton(d.colour));
    });
  }

  function offerStroke(d, path, choices) {
    let side = 0;
    const text = el("p", "", "strong");
    const row = el("div", undefined, "choices");
    const use = el("button", "Use this stroke");
    use.type = "button";
    use.id = "use-stroke";
    use.addEventListener("click", function () {
      const text = path.map(function (p) { return p[0] + "," + p[1]; }).join(" ");
      submit({ op: "loop", colour: d.colour, path: text, other_side: side ? "yes" : "",
               creature: "", x: "", y: "" });
    });
    row.append(use);
    const show = function () {
      showReplaced(choices[side].stretch);
      const crosses = choices[side].crosses_itself;
      text.textContent = crosses
        ? "Replacing the dashed stretch would make the " + d.colour + " loop cross itself."
        : "The stroke replaces the dashed stretch of the " + d.colour + " loop.";
      use.disabled = crosses;
    };
    if (choices.length > 1) {
      const other = el("button", "Replace the other side");
      other.type = "button";
      other.id = "other-side";
      other.addEventListener("click", function () { side = 1 - side; show(); });
      row.append(other);
    }
    row.append(drawAgainButton(d.colour));
    body.replaceChildren(text, row);
    show();
  }

  svg.addEventListener("pointerdown", function (event) {
    // One finger or the main mouse button draws; a second finger does not.
    if (!drawing || submitting || !event.isPrimary || event.button !== 0) return;
    event.preventDefault();
    showReplaced(null);
    svg.setPointerCapture(event.pointerId);
    if (drawing.stroke) drawing.stroke.remove();
    const box = svg.viewBox.baseVal;
    drawing.stroke = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    drawing.stroke.setAttribute("class", "stroke");
    drawing.stroke.setAttribute("fill", "none");
    // White, with a dark edge (style.css): seen over the loop it redraws, on any table.
    drawing.stroke.setAttribute("stroke", "#fff");
    drawing.stroke.setAttribute("stroke-width", String(Math.max(box.width, box.height) / 1000 * 5));
    drawing.stroke.setAttribute("stroke-linecap", "round");
    drawing.stroke.setAttribute("stroke-linejoin", "round");
    drawing.stroke.setAttribute("pointer-events", "none");
    svg.append(drawing.stroke);
    drawing.points = [svgPoint(event)];
    drawing.down = true;
    drawing.pointer = event.pointerId;
    drawing.check = (drawing.check || 0) + 1;  // an answer about an earlier stroke is stale
  });
  svg.addEventListener("pointermove", function (event) {
    if (!drawing || !drawing.down || event.pointerId !== drawing.pointer) return;
    const point = svgPoint(event);
    const last = drawing.points[drawing.points.length - 1];
    const box = svg.viewBox.baseVal;
    // A point every few thousandths of the board: smooth, and short enough to send.
    if (Math.hypot(point.x - last.x, point.y - last.y) < Math.max(box.width, box.height) / 500) return;
    drawing.points.push(point);
    if (drawing.points.length > MAX_STROKE_POINTS) {
      drawing.points = drawing.points.filter(function (_, i) { return i % 2 === 0; });
    }
    drawing.stroke.setAttribute("points", drawing.points.map(function (p) {
      return p.x + "," + p.y; }).join(" "));
  });
  function endStroke(event) {
    if (!drawing || !drawing.down || event.pointerId !== drawing.pointer) return;
    drawing.down = false;
    const point = svgPoint(event);
    drawing.points.push(point);
    drawing.stroke.setAttribute("points", drawing.points.map(function (p) {
      return p.x + "," + p.y; }).join(" "));
    if (drawing.points.length < 3) { redrawLoop(drawing.colour); return; }
    strokeDrawn();
  }
  svg.addEventListener("pointerup", endStroke);
  svg.addEventListener("pointercancel", function (event) {
    if (drawing && drawing.down && event.pointerId === drawing.pointer) redrawLoop(drawing.colour);
  });

  // What a button would do, shown on the board while it has the focus or the pointer.
  function previewWhileChosen(button, show, hide) {
    button.addEventListener("focus", show);
    button.addEventListener("mouseenter", show);
    button.addEventListener("blur", hide);
    button.addEventListener("mouseleave", hide);
  }

  // A ring where a creature would stand, while its button has the focus or the pointer.
  let ring = null;
  function ringAt(xy) {
    if (ring) { ring.remove(); ring = null; }
    if (!xy) return;
    const box = svg.viewBox.baseVal;
    const u = Math.max(box.width, box.height) / 1000;
    ring = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    ring.setAttribute("class", "spot-ring");
    ring.setAttribute("cx", String(xy[0]));
    ring.setAttribute("cy", String(xy[1]));
    ring.setAttribute("r", String(20 * u));
    ring.setAttribute("fill", "none");
    ring.setAttribute("stroke", "#fff");
    ring.setAttribute("stroke-width", String(4 * u));
    ring.setAttribute("pointer-events", "none");
    svg.append(ring);
  }

  // A stretch of a loop drawn thick while its button has the focus or the pointer.
  let shown = null;
  function highlight(stretch, colour) {
    if (shown) { shown.remove(); shown = null; }
    if (!stretch) return;
    const box = svg.viewBox.baseVal;
    shown = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    shown.setAttribute("points", stretch.points);
    shown.setAttribute("class", "stretch-highlight");
    shown.setAttribute("fill", "none");
    shown.setAttribute("stroke", PAINT[colour]);
    shown.setAttribute("stroke-opacity", "0.7");
    shown.setAttribute("stroke-width", String(Math.max(box.width, box.height) / 1000 * 14));
    shown.setAttribute("stroke-linecap", "round");
    shown.setAttribute("pointer-events", "none");
    svg.append(shown);
  }

  // After "Move it" or "Place it": the next tap on the board says where the knot lies,
  // or one of the loop's stretches is chosen (also from the keyboard); the knot counts
  // for the fields beside its stretch, wherever on it it lies.
  function chooseKnotPlace(colour) {
    putDown();
    body.replaceChildren(el("p", "Tap where the " + colour + " knot lies on the " + colour +
      " loop, or choose its stretch of the loop:", "strong"));
    const box = el("div", undefined, "choices");
    (stretches[colour] || []).forEach(function (stretch, i) {
      if (stretch.knot) return;
      const button = el("button", "Stretch " + (i + 1));
      button.type = "button";
      button.dataset.stretch = String(i);
      previewWhileChosen(button, function () { highlight(stretch, colour); },
                         function () { highlight(null); });
      button.addEventListener("click", function () {
        submit({ op: "knot", colour: colour, x: stretch.middle[0].toFixed(1),
                 y: stretch.middle[1].toFixed(1), creature: "" });
      });
      box.append(button);
    });
    body.append(box);
    open();
    movingKnot = colour;
  }

  function countsText(counts) {
    const parts = Object.keys(counts).map(function (c) { return c + " " + counts[c]; });
    return parts.length ? parts.join(", ") : "none";
  }

  function showField(id, point) {
    putDown();
    const f = fields[id];
    if (!f) return;
    body.replaceChildren();
    const title = f.outer ? "Outer field" : "Field " + f.id;
    body.append(el("h3", title + " · worth " + f.value));
    body.append(el("p", f.corners + " corner" + (f.corners === 1 ? "" : "s") +
      (f.knots.length ? " + knot" + (f.knots.length > 1 ? "s" : "") + ": " + f.knots.join(", ") : ", no knot")));
    body.append(el("p", "Demons in its corners: " + countsText(f.demons) + (f.ghosts ? " · ghosts: " + f.ghosts : "")));
    body.append(el("p", f.owner ? "Held by " + f.owner + "." : "Held by nobody (no strict majority).", "strong"));
    if (editable) {
      choiceButtons("Add here:", null, function (colour) {
        submit({ op: "add", colour: colour, x: point.x.toFixed(1), y: point.y.toFixed(1), creature: "" });
      });
    }
    open();
  }

  function showCreature(id) {
    putDown();
    const c = creatures[id];
    if (!c) return;
    body.replaceChildren();
    const name = c.kind === "ghost" ? "Ghost" : c.colour.charAt(0).toUpperCase() + c.colour.slice(1) + " demon";
    body.append(el("h3", name + " #" + c.id));
    let where;
    if (c.off_board) where = "Off the board (not scored).";
    else if (c.crossing !== null) where = "In field " + c.field + ", corner at crossing " + c.crossing + ".";
    else where = "In field " + c.field + (c.kind === "demon" ? ", away from every corner." : ".");
    body.append(el("p", where));
    c.problems.forEach(function (p) { body.append(el("p", "⚠ " + p, "error")); });
    if (c.low_confidence) body.append(el("p", "The camera is unsure of this one.", "hint"));
    if (editable) {
      if (!c.off_board && c.alike.length) {
        // A demon whose foot fits other corners as well: each is one tap away.
        body.append(el("p", "The camera could not tell its corner from:"));
        const corners = el("div", undefined, "choices");
        c.alike.forEach(function (corner) {
          const button = el("button", "Field " + corner.field + " at crossing " + corner.crossing);
          button.type = "button";
          button.dataset.corner = corner.field + "/" + corner.crossing;
          // Where it would stand, ringed on the board.
          previewWhileChosen(button, function () { ringAt(corner.xy); },
                             function () { ringAt(null); });
          button.addEventListener("click", function () {
            submit({ op: "move", creature: c.id, colour: "", x: corner.xy[0].toFixed(1),
                     y: corner.xy[1].toFixed(1) });
          });
          corners.append(button);
        });
        body.append(corners);
      }
      choiceButtons("Change it to:", c.colour, function (colour) {
        submit({ op: "change", creature: c.id, colour: colour, x: "", y: "" });
      });
      const actions = el("div", undefined, "actions");
      if (!c.off_board) {
        const move = el("button", "Move it");
        move.type = "button";
        move.id = "move-creature";
        move.addEventListener("click", function () {
          const what = c.kind === "ghost" ? "ghost" : c.colour + " demon";
          body.replaceChildren(el("p", "Tap where the " + what + " #" + c.id + " really stands.",
            "strong"));
          movingCreature = c.id;
        });
        actions.append(move);
      }
      if (!c.off_board && c.kind === "demon" && c.crossing !== null) {
        const loose = el("button", "In no corner");
        loose.type = "button";
        loose.id = "no-corner";
        loose.addEventListener("click", function () {
          submit({ op: "no_corner", creature: c.id, colour: "", x: "", y: "" });
        });
        actions.append(loose);
      }
      const place = el("button", c.off_board ? "Put it on the board" : "Off the board");
      place.type = "button";
      place.id = "on-or-off";
      place.addEventListener("click", function () {
        submit({ op: c.off_board ? "on_board" : "off_board", creature: c.id, colour: "", x: "", y: "" });
      });
      actions.append(place);
      const remove = el("button", "Remove it", "danger");
      remove.type = "button";
      remove.id = "remove-creature";
      remove.addEventListener("click", function () {
        submit({ op: "remove", creature: c.id, colour: "", x: "", y: "" });
      });
      actions.append(remove);
      body.append(actions);
    }
    open();
  }

  function showKnot(knot) {
    putDown();
    const colour = knot.dataset.knot;
    body.replaceChildren();
    body.append(el("h3", colour.charAt(0).toUpperCase() + colour.slice(1) + " knot"));
    body.append(el("p", "It counts once for each field on either side of its stretch of the " +
      colour + " loop."));
    if (knot.dataset.unsure === "yes") body.append(el("p", "The camera is unsure of this one.", "hint"));
    if (knotsMovable) {
      const move = el("button", "Move it");
      move.type = "button";
      move.id = "move-knot";
      move.addEventListener("click", function () { chooseKnotPlace(colour); });
      body.append(move);
    }
    open();
  }

  svg.addEventListener("click", function (event) {
    if (drawing) return;  // the end of a stroke, not a tap
    if (movingKnot) {
      const point = svgPoint(event);
      markTap(point);
      submit({ op: "knot", colour: movingKnot, x: point.x.toFixed(1), y: point.y.toFixed(1), creature: "" });
      return;
    }
    if (movingCreature !== null) {
      const point = svgPoint(event);
      markTap(point);
      submit({ op: "move", creature: movingCreature, colour: "", x: point.x.toFixed(1),
               y: point.y.toFixed(1) });
      return;
    }
    clearSelection();
    const knot = event.target.closest(".knot");
    if (knot) {
      knot.classList.add("selected");
      showKnot(knot);
      return;
    }
    const creature = event.target.closest(".creature");
    if (creature) {
      creature.classList.add("selected");
      showCreature(creature.dataset.creature);
      return;
    }
    const field = event.target.closest(".field");
    const id = field ? field.dataset.field : svg.dataset.outer;
    if (field) field.classList.add("selected");
    const point = svgPoint(event);
    if (editable) markTap(point);
    showField(id, point);
  });
  svg.addEventListener("keydown", function (event) {
    const knot = event.target.closest(".knot");
    if (knot && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      clearSelection();
      knot.classList.add("selected");
      showKnot(knot);
      return;
    }
    const creature = event.target.closest(".creature");
    if (creature && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      showCreature(creature.dataset.creature);
    }
  });
  // A loop read with no knot: "Place it", then tap where its knot lies.
  document.querySelectorAll("button[data-place-knot]").forEach(function (button) {
    button.addEventListener("click", function () {
      clearSelection();
      chooseKnotPlace(button.dataset.placeKnot);
      svg.scrollIntoView({ behavior: "smooth", block: "nearest" });
    });
  });
  // "Redraw a loop" under the board, or "Redraw it" beside a warning about one loop.
  const redraw = document.getElementById("redraw-loop");
  if (redraw) redraw.addEventListener("click", chooseLoopToRedraw);
  document.querySelectorAll("button[data-redraw-loop]").forEach(function (button) {
    button.addEventListener("click", function () {
      redrawLoop(button.dataset.redrawLoop);
      svg.scrollIntoView({ behavior: "smooth", block: "nearest" });
    });
  });
  // Tapping a violation in the list picks out the creatures that show it.
  document.querySelectorAll("li.violation[data-creatures]").forEach(function (item) {
    item.addEventListener("click", function () {
      putDown();
      clearSelection();
      item.dataset.creatures.split(" ").forEach(function (id) {
        const mark = svg.querySelector('[data-creature="' + id + '"]');
        if (mark) mark.classList.add("selected");
      });
      svg.scrollIntoView({ behavior: "smooth", block: "nearest" });
    });
  });
  document.getElementById("sheet-close").addEventListener("click", close);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") close(); });
})();
