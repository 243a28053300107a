"""Combine stage: the colour rules' reading and the detector's, into one.

The colour rules (:mod:`vision.separate`, :mod:`vision.creatures`) and the learned
detector (:mod:`vision.detect`) see pawns and knots in different ways: the rules by how
unlike the table their pixels are, the detector by shape and shading. Where the table
has a pawn's own colour (a yellow demon on light wood, a ghost on a white table) the
rules see a crescent or nothing, and the detector the pawn; where a dark shadow falls
beside a pawn, the detector may see a second pawn, and the rules' colour says it is
none. This stage keeps what each is good at:

- a pawn's foot is the detector's, when it marked the pawn (it was trained on exact
  feet; the rules guess the base from the blob's shape), and so are its kind and
  colour where the detector is sure, or marks a ghost and nothing of the rules' kind
  and colour there (a ghost under a warm lamp is yellowish), or marks both and the
  eight turned and mirrored views of the place mark the ghost more;
- a pawn the detector marked surely and the rules did not see at all is added; one
  it marked faintly, or not quite surely, is added when it is marked in most of eight
  turned and mirrored views of its place (:func:`vision.detect.look_again`);
- a pawn the rules saw and the detector did not mark at all is dropped (a lit patch
  of the table, a cup's rim, a shadow read as a pawn), and so is one it marked faintly
  in the one view and not in the eight;
- a loop the colour rules could not see, or saw little of (a cord on a table of its
  own colour, a cord in a long shadow), or saw away from where the detector's cord map
  shows its cord, is traced on the cord map too, and the reading that saw more of it
  is kept;
- a knot the detector marked on a traced loop is taken: its mark nearest where the
  tracer put the knot, unless a much stronger one lies elsewhere on the loop, or
  else its strongest mark on the loop (the tracer guesses it from thickness and
  tails, which shadows and pawns mimic); the cord map's colour at a mark says whose
  knot it is where loops pass near each other.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing
from shapely.geometry import Point as ShapelyPoint

from engine.board import Point
from engine.colours import DEMON, GHOST, WHITE
from engine.placement import BETWEEN_CORNERS_AMBIGUITY, BoardGeometry, Foot
from vision.creatures import (
    FAINTLY_SEEN,
    MAYBE_MISSED,
    NOT_A_PAWN,
    SEVERAL_PAWNS_WIDTH,
    SHAPE_ONLY,
    TOUCHING_PAWNS,
    Pawns,
    Remark,
    SeenPawn,
)
from vision.demon_check import CLEAR_OF_DEMON
from vision.detect import KNOT, SAME_PAWN, Detection, Detections, one_mark_per_pawn
from vision.doubts import LOW_CONFIDENCE, missed_pawn_warning, no_knot_warning
from vision.ghost_check import CLEAR_OF_GHOST
from vision.knot_check import KNOT_REACH
from vision.parts import disc_window
from vision.pawn_size import CROP_PAWNS
from vision.separate import Separation
from vision.trace import (
    Loop,
    Loops,
    all_four,
    apart_from_the_others,
    follow_bridges,
    follow_through_crossings,
    resample_closed,
    too_short,
    trace_each,
    with_knot_of,
)

#: A pawn the rules did not see is added when the detector is this sure of it.
ADD_SCORE = 0.4
#: An added pawn marked less than this gets a warning (the overlay rings the same
#: pawns as unsure: vision.doubts.LOW_CONFIDENCE, and with them, since the ninety-second
#: session, the rules' pawns kept on faint marks, without a warning); surer ones would
#: only crowd the list a player checks first. A demon the demon checker confirms is
#: excepted: it is as sure as UNSURE_ADDED, without a warning (SHAPED_DEMON_CHECKED).
UNSURE_ADDED = 0.6
#: A mark from CONFIRM_FROM (a ghost's from FAINT_GHOST_FROM) up to ADD_SCORE that no
#: pawn kept stands at is scored again in eight views (vision.detect.look_again) and
#: added from a mean of CONFIRMED_ADD_SCORE, a ghost from CONFIRMED_GHOST_SCORE. On
#: generated photos the pawns marked so faintly (a ghost on a light table, a demon
#: beside its own shadow) mostly score 0.3-0.5 in the mean, and no other mark (a shadow,
#: the lit rim of a cord) scored 0.3. On the dev photos the long shadows of a blue mat
#: under a warm lamp score 0.3-0.35 as blue demons; no ghost mark there scores 0.3 (nor
#: adds a ghost from 0.25), and a ghost on a white table stays faintest of all
#: (0.25-0.34 in the mean). A ghost is taken from 0.25 since the forty-first session:
#: over the nine generated sets 3 boards won and 1 lost (290201: a ghost too many on
#: beige cloth, 0.27 in the mean; won back by FAINT_GHOST_CLEAR_OF_CROSSING), the four
#: held out 1 won. On the white tables of the nine sets (270 photos) the three ghost
#: marks from CONFIRM_FROM with a mean of 0.25-0.3 were all ghosts. It holds for a mark
#: from ADD_SCORE up to UNSURE_ADDED too.
CONFIRM_FROM = 0.25
CONFIRMED_ADD_SCORE = 0.35
CONFIRMED_GHOST_SCORE = 0.25
#: ... or from RULES_GHOST_SCORE where the colour rules saw a ghost (its outline, white)
#: within RULES_GHOST_REACH pawn widths that no mark kept: two cues that agree (530146:
#: a ghost against a red demon, the rules' foot 0.7 pawn widths from the faint mark,
#: 0.19 in one view and 0.24 in eight; over five fresh sets, 1050 photos, it adds that
#: ghost and no other, fifty-sixth session).
RULES_GHOST_SCORE = 0.2
RULES_GHOST_REACH = 1.0
#: A ghost mark is looked at again from this fainter score: a ghost on a white table
#: or pale cloth, plain to see, may be marked only 0.15-0.25 in the one view and
#: 0.25-0.35 in the mean (310165, 320170). On the white tables of the nine generated
#: sets (270 photos), of the ghost marks from 0.1 that no pawn was read at, the six
#: with a mean from 0.25 stood on ghosts (five missed, one read already, its second
#: mark), the likeliest mark elsewhere 0.17. Measured on white tables, it holds on
#: every table: the one board lost, on beige cloth (290201), was a mark beside a
#: crossing (see FAINT_GHOST_CLEAR_OF_CROSSING). Such a mark under CONFIRM_FROM that is
#: not confirmed is not warned of (see TOUCHING_DOUBT).
FAINT_GHOST_FROM = 0.15
#: Such a mark (under CONFIRM_FROM) is not looked at again within this many pawn widths
#: (the width the detector looked for) of a crossing of the traced loops: a ghost is
#: summoned into a field's centre, and beside a crossing stand the demons of its
#: corners (at a right angle, their feet touching both cords stand 0.71 pawn widths from
#: it). 290201: a ghost added on beige cloth beside a crossing, in the corner of a
#: yellow demon, 0.53 pawn widths from the crossing, 0.27 in the mean. Over the nine
#: generated sets, of the 89 ghost marks from FAINT_GHOST_FROM to CONFIRM_FROM looked
#: at again, the 11 on ghosts stood from 0.73 pawn widths from the truth's nearest
#: crossing (310145, a near ghost on a tilted blue mat; its traced crossing is farther),
#: then 1.09; 9 of the 78 others stood nearer than 0.7. Of the 8873 ghosts of the nine
#: sets 39 stand within 0.75 of their own width of a crossing (0.4 %), of the dev
#: photos' 100 none. A mark so faint near the centre of a field with no ghost is still
#: looked at by add_centred_ghosts.
FAINT_GHOST_CLEAR_OF_CROSSING = 0.7
#: A rules' demon turns into the ghost the views mark more only from this mean: the
#: rules saw a demon there, and 0.25 was not measured for it (the fortieth session's
#: 0.3 kept).
LIKELIER_GHOST_SCORE = 0.3
#: Such a mark is not looked at again where a pawn of its colour stands within this
#: share of a pawn width: the detector may mark one pawn twice, faintly beside surely.
#: Two pawns touching stand about a pawn width apart (their bases touch; the width is
#: one for the whole photo, and a tilted camera shows near pawns larger), so a whole
#: width skipped the second of two touching demons (220116: 1.04 of the truth's pawn
#: widths apart, under one of the width read for the photo).
BESIDE_OWN_SHARE = 0.8
#: A mark looked at again and not confirmed (from CONFIRM_FROM, or from ADD_SCORE up
#: to UNSURE_ADDED), with a mean of at least TOUCHING_DOUBT, standing
#: TOUCHING_DOUBT_REACH pawn widths (from, to) from the nearest pawn kept, is named in
#: the warnings (vision.doubts.missed_pawn_warning): a pawn touching another, half
#: behind it in the photo, is marked faintly in every view, and the detector cannot
#: tell it from a second mark of the pawn beside it. On the fourteenth and eighteenth
#: fresh sets (420 photos) four such marks were warned of, two of them pawns the
#: reading missed (230076, a ghost against a ghost; 280166, a green demon behind a
#: yellow one; means 0.28 and 0.21), two the second mark of a pawn, on boards the
#: report doubted already. Adding them instead would lose as many boards as it won.
#: (230076's ghost, 0.28 in the mean, is added since ghosts are from 0.25.) A ghost
#: mark under CONFIRM_FROM (FAINT_GHOST_FROM) not confirmed is not warned of: the
#: warnings stay those of the marks looked at before.
TOUCHING_DOUBT = 0.15
TOUCHING_DOUBT_REACH = (0.7, 1.2)
#: A pawn the rules saw is kept when the detector marked it at least this much (and,
#: marked under CONFIRM_FROM, this much in the mean of the eight views too, given a
#: second look).
#: (Keeping also the pawns the rules alone were sure of, as the first version did,
#: kept mostly false ones: creature precision 98.8 -> 99.9 % on generated photos,
#: 97.1 -> 98.1 % on the dev photos, for no pawn lost.)
KEEP_SCORE = 0.1
#: A rules' ghost kept on a mark under CONFIRM_FROM is dropped where a ghost marked
#: from CONFIRM_FROM stands within a pawn width: the same ghost, its foot put by the
#: rules in its shadow. Kept on a mark under FAINT_RULES_GHOST, it is dropped where a
#: ghost marked from FAINT_RULES_GHOST (or added) stands within HEAD_REACH pawn widths:
#: the rules put a tall ghost's foot at its head, where the detector marks it less than
#: its foot (1710077: 0.36 at the head, 0.53 at the foot, 0.56 widths apart, one ghost
#: read twice). Not farther: two ghosts touching (a planted two-ghosts-in-field,
#: 1670128: marked 0.39 and 0.47, 0.85 widths apart) stand from TOUCHING_DOUBT_REACH's
#: 0.7 widths apart.
FAINT_RULES_GHOST = ADD_SCORE
HEAD_REACH = TOUCHING_DOUBT_REACH[0]
#: A pawn both see takes the detector's kind and colour where its mark is this strong
#: (a ghost under a warm lamp looks yellow to the colour rules, not to the detector).
#: A fainter ghost mark turns the rules' demon into a ghost too where the detector
#: marks no pawn of the rules' kind and colour within SAME_PAWN pawn widths of it
#: (it reports marks from 0.1): such ghosts, marked 0.2-0.48, were read as yellow
#: demons on five photos of lamp-lit wood and cloth of the eleven generated sets, and
#: one as a red demon beside a red one on a dev photo by a tuned detector. Where it
#: marks the rules' demon there too, more faintly, the eight views decide (see
#: :func:`_likelier_ghost`).
SURE_COLOUR = 0.5
#: A loop of which the colour rules saw less than this share is traced again on the
#: detector's cord map, and the one that saw more of it is kept.
WEAK_SEEN = 0.8
#: The cord map marks a cord where it is at least this sure (0..255).
CORD_SURE = 128
#: A loop the colour rules saw most of is traced again on the cord map too where less
#: than this share of its length runs along its cord there (at least CORD_NEAR within
#: AGREE_REACH string widths): the rules took pieces of other cords, or of the table,
#: for it (a blue cord on a blue mat, partly lost among shadows, shortcut through the
#: lit edges of other cords).
CORD_AGREEMENT = 0.8
CORD_NEAR = 64
AGREE_REACH = 1.5
#: String pixels within this many pawn widths of a pawn mark of their colour at least
#: this strong, where the cord map does not mark the cord, are taken for the pawn (see
#: :func:`without_marked_pawns`; eight generated sets 1578 -> 1590 of 1680 boards, 13
#: won and 1 lost, dev photos unchanged).
PAWN_CUT_WIDTHS = 0.8
PAWN_CUT_SCORE = 0.5
#: A demon read at a ghost mark is asked of the ghost checker where the mark lies within
#: this many pawn widths of its field's centre (:func:`_ghosts_read_as_demons`; 1.0,
#: CENTRE_REACH, before the eighty-eighth session: 1560188's ghost under a warm lamp,
#: read as a yellow demon, stood 1.45 widths from the centre of its narrow field, the
#: checker's odds 0.995 there). Over the hard photos of eight generated sets
#: (1490000-1560000), the demons read at a ghost mark in a field with no ghost, up to
#: 3 widths from its centre, had odds of at most 0.005, the ghosts 0.99 and more.
DEMON_AT_GHOST_REACH = 2.0
#: A bounded field with no ghost read takes a ghost the detector marks from
#: CENTRED_GHOST_FROM within CENTRE_REACH pawn widths of the field's centre, when the
#: mean of the eight views (:func:`vision.detect.look_again`) is at least
#: CENTRED_GHOST_SCORE. A ghost is summoned into the centre of a field, so a faint ghost
#: mark there is a ghost far more often than one elsewhere: on the hard and normal
#: photos of three generated sets (420), of the faint ghost marks no pawn was read at
#: within a pawn width of an empty field's centre, 10 of 11 ghosts reached 0.2 in the
#: mean and 1 of 5 other marks did (a ghost on a white table or a pale cloth, under a
#: lamp; the dev photos' ghosts stand 0.07 pawn widths from the centre in the median,
#: the generator's 0.28, 1.1 at the 90th percentile).
CENTRED_GHOST_FROM = 0.1
CENTRE_REACH = 1.0
CENTRED_GHOST_SCORE = 0.2
#: ... or where the ghost checker (:mod:`vision.ghost_check`) gives a ghost at the
#: field's centre, or at that mark, at least these odds: on the held-out set of its
#: training, at the fields' centres, 99.2 % of the ghosts and 0.08 % of the places
#: with none (2 of 2467) reach 0.9.
CHECKED_GHOST = 0.9
#: ... and only where the eight views mark a ghost there at least this much in the
#: mean: some view must see a pawn. Under a harsh low light, a bright gap of the table
#: between two long pawn shadows is a ghost's blob to the colour rules and a ghost to
#: the checker, but no view of the detector marks one (seventy-seventh session: over
#: 1000 generated photos, 200 of them under harsh side light, the rule added 6 ghosts;
#: the 3 false, all under harsh side light, had means 0.00-0.01, the 3 true 0.06-0.18,
#: and the ghosts it was made for, 690187, 550209 and 570201, 0.13-0.18).
CHECKED_GHOST_MEAN = 0.03
#: ... and not where a ghost already read stands within half of
#: :data:`vision.pawn_size.CROP_PAWNS` pawn widths of a place whose odds reached that
#: (in the circle inside its crop): the odds there may be about that ghost, off the
#: crop's middle (610140: a ghost added 2.2 pawn widths from the next field's, in a
#: small field crowded by four demons).
CHECKER_CLEAR_OF_GHOST = CROP_PAWNS / 2
#: A bounded field in which, after that, still no ghost stands takes one where the
#: checker's odds reach CHECKED_GHOST at its centre, or at one of six places
#: CENTRE_RING pawn widths round it (asked only where the odds at the centre reach
#: RING_FROM: the checker's yes is for a ghost's foot within half a width of the place,
#: and it is surest where that foot is in the crop's middle), and the eight views mark
#: a ghost there at least CENTRED_GHOST_SCORE in the mean: the two cues asked of a
#: faint mark near a field's centre, with the checker's yes standing in for the
#: detector's mark (eightieth session: a ghost standing on a cord on a white table,
#: marked under 0.1 in the one view: 1270070, 1280185, 1280192). Over 1200 generated
#: photos, of the 12650 fields left without a ghost, the 3 missed ghosts near a centre
#: had odds 0.94-1.0 and means 0.22-0.30; of the places without one that reached 0.9,
#: the likeliest mean was 0.13.
CENTRE_RING = 0.35
RING_FROM = 0.1
#: A faint ghost mark (from CENTRED_GHOST_FROM) that no pawn stands at, within
#: HIDDEN_GHOST_REACH pawn widths of a pawn read, is a ghost half hidden by that pawn
#: where the ghost checker's odds at the mark reach CHECKED_GHOST and the views' mean
#: there CHECKED_GHOST_MEAN (:func:`add_ghosts_behind_pawns`): on a tilted photo a
#: ghost standing against a demon nearer the camera shows its head only, and the
#: detector marks it 0.1-0.25 (eighty-second session, 1360179, 1360181, 1360197: a
#: ghost's foot 0.6-0.8 widths behind a demon's, the mark on its head 1.2-1.3 widths
#: from the demon's foot, odds 0.96-1.0, means 0.12-0.20). Over about 900 generated
#: photos (1330000-1360000, part of 1320000), of the ghost marks from 0.1 with no pawn
#: read within half a width whose nearest pawn read was a demon 0.5-2 widths away, the
#: others on the board had odds of at most 0.87 (1320112, 1320103: means 0.00, 0.08);
#: one off it 0.94 (1350159, a playing card's pale rim beside the green demons read on
#: its back). The marks the checker is as sure of far from every pawn were at the
#: photo's edge (its crop padded there).
HIDDEN_GHOST_REACH = 1.5
#: A ghost seen only faintly is dropped where the ghost checker asked eight ways gives it
#: under this (:func:`without_faint_ghosts_checked_away`). Census (eighty-fourth
#: session) of the ghosts only the detector's shape showed (marked 0.4-0.6, or fainter
#: and confirmed in the views) on 1410000, 1420000 and the hard photos of
#: 1320000-1400000: 351 (the dev photos: none), 346 at a true ghost from 0.06 (1410158:
#: two ghosts on a pale table, 0.06 and 0.07 one crop, 0.11 and 0.06 eight ways), two off
#: the board or beside a ghost at 0.98-1.00; under 0.01 one where nothing stands
#: (1420175, 0.0035 one crop, 0.0024 eight ways) and two demons read as ghosts (1390199,
#: which the checkers turn back first; 1400159, a second reading of a demon there).
#: Census (eighty-fifth session) of the ghosts taken at a field's centre on the views
#: alone, on 1410000-1440000, three sets of seeds 5010000-5030000 and the hard photos of
#: 1320000-1400000 (1994 photos): 7; under 0.01 only 1440105's, where nothing stands
#: (0.00003); the others from 0.56 (two 0.6 widths from a true ghost, its foot aside).
FAINT_GHOST_DOUBT = 0.01
#: The remarks that say a ghost was seen only faintly.
FAINT_GHOST_REMARKS = (SHAPE_ONLY, FAINTLY_SEEN)
#: A demon read less surely than UNSURE_ADDED is read as a ghost where the ghost checker
#: asked eight ways gives a ghost there at least this (:func:`faint_demons_checked_as_ghosts`,
#: eighty-ninth session). Census of the demons read under UNSURE_ADDED on the 396 hard
#: photos of 1540000-1590000: 346 in 134 photos; the 342 at a true demon and the 2
#: where nothing stands (1590152, 1590193: green demons too many on felt) had at most
#: 0.08 eight ways (0.22 in one crop: 1560141, a green demon 0.88 widths from a ghost),
#: the two at 1580163's ghosts 0.997 and 0.998. Only 1580163 changes. Since the
#: ninety-second session the rules' demons kept on faint marks are under UNSURE_ADDED
#: too (as sure as the views' mean); read again, the 27 photos of 1660000-1700000 that
#: have such pawns turned none of them into a ghost. A demon added on its shape alone
#: that the demon checker confirms (SHAPED_DEMON_CHECKED) is no longer under it, and
#: not asked about.
FAINT_DEMON_GHOST = 0.9
#: A demon the detector marks from CORNERED_DEMON_FROM, where no pawn was read, which
#: stands in a corner of its own colour (see :func:`add_cornered_demons`) is
#: taken when the mean of the eight views reaches CORNERED_DEMON_SCORE: on the hard
#: photos of three generated sets, of 21 such marks 8 were demons, 5 of them reached
#: 0.25, and none of the 13 others did (the likeliest 0.19); a demon of the table's
#: hue (blue on the blue mat, green on felt) is marked faintly. Within a pawn width of
#: the mark (from half a width: nearer, it is that pawn's mark) a ghost keeps it out,
#: and so does a demon in the same corner or in none, but not one in another corner:
#: two demons touching in neighbouring corners, the one behind half hidden, are marked
#: surely and faintly 0.6-1.0 of the width read apart (320202, 310153; on a tilted
#: photo the width is read up to 1.4 times too wide).
CORNERED_DEMON_FROM = 0.1
CORNERED_DEMON_SCORE = 0.25
#: A demon of the table's hue (green on felt, blue on the blue mat) is taken so from a
#: lower mean, TABLE_HUE_DEMON_SCORE, where the detector marked it at least CONFIRM_FROM
#: in the one view: against its table it looks pale in every view (the demons of felt
#: and mat missed over the fourteenth to thirtieth sets scored 0.1-0.3 in the mean).
#: Both are asked for (forty-sixth session; but see FAINT_TABLE_HUE_DEMON). On the 382
#: felt and mat photos of those sets, the lower mean alone found missed demons (280166,
#: 310164, 340179, 350209: 0.27-0.40 in the one view, 0.21-0.24 in the mean) but also
#: added false ones on bare felt or mat beside a crossing (230146, 330194: 0.13 and 0.15
#: in the one view, 0.22 and 0.23 in the mean); with both, boards 354 -> 357, four
#: demons found and none false. On the 51 felt and mat photos of two sets made
#: afterwards, two demons found, none false, boards 48 -> 48.
TABLE_HUE_DEMON_SCORE = 0.2
#: ... or, for a mark of the table's hue the views leave under that (since the
#: seventy-eighth session a mark of any colour, CHECKER_CLEAR_OF_KNOT), where the demon
#: checker (:mod:`vision.demon_check`) gives a demon at it at least CHECKED_DEMON odds
#: and the views' mean is at least CHECKED_DEMON_MEAN (sixty-fifth session). Of the 150
#: marks looked at so on the hard photos of sixteen generated sets, the checker gave
#: the 3 true demons missed 0.96-1.0 (550183), and 5 marks with no demon of their colour
#: 0.95 or more: three of them had a mean of 0.00-0.03 (beside another pawn, a ghost),
#: one was a blue mark on wood (640145, a board lost when read). Both cues and the
#: table's hue keep those out: 109 photos with such marks read 94 -> 96 (550183,
#: 570142), none lost; the 57th and 58th sets and the dev photos: no board changed.
#: Nowhere within :data:`vision.demon_check.CLEAR_OF_DEMON` pawn widths of a demon read
#: is the checker's yes at the mark taken alone (seventy-fifth session; since the
#: seventy-eighth it is asked again clear of it, AWAY_DEMON): it was taught no only where no
#: demon stands that near, and its crop holds that demon (1130161: a blue mark on navy
#: cloth at the blue cord's knot, 0.67 widths in front of a yellow demon, added as a
#: blue demon; over 1326 hard photos of fourteen sets the checker added no other demon
#: that near one read but 960400's, a green demon half behind a blue one on a board
#: wrong for other reasons).
CHECKED_DEMON = 0.95
CHECKED_DEMON_MEAN = 0.1
#: ... and such a mark under CONFIRM_FROM (whose views' mean must otherwise reach
#: CORNERED_DEMON_SCORE) where the mean reaches TABLE_HUE_DEMON_SCORE, from the
#: checker's lower odds FAINT_TABLE_HUE_DEMON (seventy-second session): a green demon on
#: felt, plain to see, may be marked only 0.2 in the one view and 0.22-0.249 in the mean
#: (890136, 930181: the checker 0.86 and 0.88). Of such marks over the felt and mat
#: photos of sixteen generated sets and a fresh set of 200 hard felt and mat photos, the
#: demons missed had odds 0.48-0.88 and the others at most 0.77 (960565: bare mat;
#: 330194, the forty-sixth session's false demon made again, 0.74). From 0.5 those two
#: would be added, and 930136's demon (0.54).
FAINT_TABLE_HUE_DEMON = 0.8
#: A demon of the table's hue taken on the views' mean alone (CORNERED_DEMON_SCORE, or
#: TABLE_HUE_DEMON_SCORE) is not taken where the demon checker gives it under
#: RULED_OUT_TABLE_HUE_DEMON (ninetieth session): under a harsh side light the shadows
#: and lit weave of felt beside a crossing are marked as demons of its hue in every view
#: (1590152: a green demon on bare felt, 0.42 in the one view, 0.24 in the mean;
#: 1520138, 1620190). Of the 45 demons so taken on the 454 felt and mat photos of
#: 1430000-1620000, the 42 true ones had odds of 0.126 or more (1610184: a green demon
#: under a red one's shadow), the three false ones 0.001-0.016. Read again, the 35
#: photos with such demons: 25 -> 27 exact (1520138, 1590152; 1620190 one green demon
#: too many fewer, its other false one given 0.995), none lost; the dev photos the same.
#: It is asked as the demon is taken: one left out then keeps no neighbour's mark out.
RULED_OUT_TABLE_HUE_DEMON = 0.05
#: A demon of the colour rules kept on a faint mark (under CONFIRM_FROM) that the eight
#: views confirm is dropped where the demon checker gives it under RULED_OUT_FAINT_DEMON
#: (ninety-second session): under a harsh side light on dark wood, the long shadows of
#: pawns are reddish and dark, the colour rules read them as red demons, and the detector
#: marks them faintly in the one view and in the mean too (1660147: 0.16 and 0.15, the
#: checker 0.000; 1660155: 0.24 and 0.21, the checker 0.001). The same bound as for the
#: table's hue (RULED_OUT_TABLE_HUE_DEMON); the census is in docs/reader-history.md.
RULED_OUT_FAINT_DEMON = 0.05
#: A demon the rules did not see, added on a mark under UNSURE_ADDED (seen only by its
#: shape), is as sure as UNSURE_ADDED, neither ringed nor warned of, where the demon
#: checker gives it at least SHAPED_DEMON_CHECKED (ninety-second session): such demons
#: are nearly always right, and warning of each made half the exact boards carry a
#: doubt. Census on 1670000 and 1700000 (400 photos): 96 such demons right, 73 of them
#: given 0.99 or more, the one wrong (1700170, a yellow demon on the blue mat) 0.022;
#: of 84 such ghosts right 66 reach 0.99, and 3 wrong ghosts off the board (boards still exact)
#: 0.996-1.0, so ghosts are left as they were.
SHAPED_DEMON_CHECKED = 0.99
#: A demon's mark in a corner of its colour with a ghost read within a pawn width of
#: it (a demon half behind the ghost it touches, 820168, 840172) is added where the
#: demon checker gives it at least BESIDE_GHOST_DEMON odds and the views' mean is at
#: least CHECKED_DEMON_MEAN, whatever the table (sixty-ninth session). Over 2400
#: generated photos (the eleven sets of the sixty-sixth to sixty-eighth sessions) 17
#: marks stood so: the checker gave 6 of the 7 true demons among them 0.68-1.0 (means
#: 0.24-0.33), and of the 10 others only two more than 0.11: 0.76 (mean 0.00) and
#: 0.985 (mean 0.22, 800615: a blue mark 0.94 pawn widths from a green demon missed).
BESIDE_GHOST_DEMON = 0.5
#: A mark of any other colour than the table's that the views leave under
#: CORNERED_DEMON_SCORE is asked of the checker too (seventy-eighth session), from
#: CHECKED_DEMON odds and a mean of CHECKED_DEMON_MEAN, but not within
#: CHECKER_CLEAR_OF_KNOT pawn widths of the knot of its colour: the checker takes a knot
#: for a demon (640145, the sixty-fifth session's false demon made again: a blue mark
#: 0.43 widths from the blue knot on wood, 0.96; 1130161, 0.57 widths, 0.96). Over 1862
#: hard generated photos (the hard thirds of seven fresh sets, 1160000-1250000, the
#: harsh-side set and 1200 hard photos 1170000-1180599) the marks so asked that reach
#: those odds were 6 demons missed (3.9-13.6 widths from their knot) and nothing else.
CHECKER_CLEAR_OF_KNOT = 1.0
#: Within CLEAR_OF_DEMON of a demon read (seventy-eighth session), a mark whose odds
#: reach its least is asked about again at the place that far from that demon, on the
#: line from it through the mark (where that place lies as far from every other demon
#: read), and taken where the odds there reach AWAY_DEMON too: there the crop holds the
#: demon read only where the checker was taught no. Over the 1862 hard photos the
#: demons missed beside a demon read (two touching, one half behind the other) gave
#: 0.91-0.99 there, the marks of no demon 0.02-0.74, and 1130161's false mark (0.96 at
#: the mark) 0.57.
AWAY_DEMON = 0.85
#: A ghost read at a demon's mark in a corner of the mark's colour is read as that demon
#: where the ghost checker gives a ghost there under NOT_A_GHOST odds and the demon
#: checker a demon at least DEMON_NOT_GHOST (seventieth session): the ghost checker says
#: no, the demon checker more yes than no. Over 2400 generated photos (the eleven sets
#: of the sixty-sixth to sixty-ninth sessions), of the 13095 ghosts read the 13051 true
#: ones had ghost odds under 0.05 24 times, and then demon odds of at most 0.012 (at
#: most 0.79 over all of them); of the 7 demons read as ghosts, 5 had ghost odds of at
#: most 0.003 and demon odds 0.82-0.998 (830173: three blue demons on the blue mat in
#: low light, marked surer as ghosts than as demons; 770148: a blue demon, 0.82).
NOT_A_GHOST = 0.05
DEMON_NOT_GHOST = 0.5
#: Knot marks at least this strong and within this many string widths of a loop are
#: looked at for its knot; one within so many string widths of the tracer's knot
#: agrees with it. (Taking even weak marks on their own, where none agrees, beat
#: asking for 0.6: knots recalled on generated photos 96.1 -> 98.7 %; the tracer's
#: guess from thickness and tails is the weaker of the two.)
KNOT_SCORE = 0.2
KNOT_REACH_WIDTHS = 2.0
#: ... or within this many pawn widths, where that is more: the detector places a mark
#: to a share of the pawn width it looks at, and where the strings are thin (a tenth of
#: a pawn or less) two string widths held out a knot marked 0.35 (490191: 7.8 px from
#: its loop, the reach 7.6).
KNOT_REACH_PAWNS = 0.2
AGREE_WIDTHS = 4.0
#: A knot mark where the cord map shows the loop's own cord (on average at least this
#: sure over a square of so many string widths round the mark, and at least half as
#: sure as of the likeliest colour there) is that loop's from this weaker score: a
#: knot half hidden by a pawn is marked faintly, and the cord's colour says whose it is
#: where two loops pass near each other. (Knots found on generated photos: 829 -> 833
#: of 840 on the development set, 820 -> 823 and 825 -> 831 on two fresh sets; dev
#: photos 69 -> 70 of 72.)
KNOT_COLOUR_SURE = 64
KNOT_COLOUR_WIDTHS = 1.5
OWN_CORD_KNOT_SCORE = 0.1
#: A knot mark at least this strong, on a colour's cord (the likeliest on the cord map
#: there), beyond knot_reach() of that colour's traced loop means the
#: tracer took a wrong way past the knot: the loop is traced again on the cord map
#: (unless a demon of that colour stands at the mark, see LOST_KNOT_DEMON_SCORE).
LOST_KNOT_SCORE = 0.4
#: Such a mark within reach of no loop counts for a loop whose own cord shows at it up
#: to SURE_KNOT_REACH times knot_reach() from it, taken at that loop's point beside it:
#: where a knot's lump or a tail pushes the cord's skeleton to one side, the loop
#: traced on the colour rules' string and the one traced again on the cord map pass
#: the knot alike, a little beyond reach (1220135: a blue knot on dark cloth marked
#: 0.74, 8.3 px from both, the reach 7.6; the knot stayed on a lump the checker gave
#: 0.00). Over the knot stages of 1200 fresh hard photos (seventy-seventh session),
#: the marks from LOST_KNOT_SCORE on their own cord 1 to 1.5 reaches from their loop
#: were 3, all knots; the nearest that was none lay 1.85 reaches off.
SURE_KNOT_REACH = 1.5
#: A loop traced again on the cord map to pass a lost knot is kept only when it sees
#: nearly as much of itself as the loop it replaces (at most this share less): a cord
#: map that shows too little of the cord bridges from shadow to shadow and passes the
#: mark by chance.
LOST_SEEN_SLACK = 0.25
#: A knot mark within PAWN_BASE_WIDTHS pawn widths of a demon of its cord's colour
#: marked at least this strongly is no lost knot: the detector marks a demon's head or
#: base on its own cord as it marks a knot (1900164: a green demon's head on felt, seen
#: from above, marked a knot 0.41 beside its foot's 0.36; traced again to pass it, the
#: green loop put a crossing 6.8 string widths off). Of 52 lost marks over 670 fresh
#: hard photos (hundredth session), 29 lay beside such a demon, one near the true knot
#: (its board read exactly either way); the rule won 1900164 and changed no other.
LOST_KNOT_DEMON_SCORE = 0.3
#: A loop traced on the cord map apart from the others is kept unless it saw this much
#: less of its loop than the reading along them (:func:`_apart_on_cords`).
APART_SEEN_SLACK = 0.1
#: It is traced so only where it follows another loop (within ALONG_REACH string widths)
#: for more than ALONG_WIDTHS string widths at a stretch: two cords crossing at 30
#: degrees lie that near along 6 widths.
ALONG_REACH = 1.5
ALONG_WIDTHS = 15.0
#: The mark agreeing with the tracer's knot is taken unless another mark on the loop is
#: stronger by more than this (the tracer takes a thick lump at a crossing or beside a pawn
#: for the knot as readily as the knot).
STRONGER_BY = 0.3
#: ... or by more than this where the tracer's knot lies within BESIDE_PAWN pawn widths
#: of a pawn of the loop's colour: there the pawn's base, left beside the cord, is a
#: lump as thick as a knot's (on the generated sets the knot 829 -> 829, 827 -> 830 of
#: 840, development set and dev photos unchanged, measured offline on their marks).
STRONGER_BY_BESIDE_PAWN = 0.15
BESIDE_PAWN = 1.5
#: A knot chosen on a mark fainter than this is looked at again in eight views with
#: the other likeliest places on its loop: its next KNOT_CONTENDERS - 1 marks, and the
#: tracer's knot. Four contenders since the sixty-fourth session: on 600151 the green
#: knot on green felt was the loop's fourth mark (0.18, 0.39 in the mean), behind the
#: chosen lump (0.28, 0.18 in the mean) and two others. The 271 contests of the
#: 42nd-55th sets and the dev photos, replayed on their logged marks and means, changed
#: that knot alone (read again, its board exact, the other 171 photos with a contest of
#: the 42nd-50th sets unchanged).
KNOT_CONTEST = 0.45
KNOT_CONTENDERS = 4
#: ... and another is taken only if its mean over the eight views is this much higher
#: (also the margin by which a faint mark must beat the tracer's knot in the views:
#: :func:`_fainter_than_the_tracers`). 0.1 until the sixty-seventh session: replayed on
#: the knot stages of 600 fresh hard photos and the 22 knots read wrong on eight fresh
#: sets, 0.05 set 700151's and 700178's knots right (0.28 and 0.25 in the views against
#: lumps at 0.19); on the 600, one knot won (800454) and one lost (800578).
KNOT_SWITCH_BY = 0.05
#: A knot chosen on a mark within PAWN_BASE_WIDTHS pawn widths of the foot of a pawn of
#: the loop's colour gives way to the strongest mark on the loop that is at least as far
#: from all of them (and at least KNOT_SCORE), if that one is marked at most
#: OPEN_KNOT_SLACK less: the base of a pawn standing on its own cord is marked like a
#: knot (a cone seen from its side most). A knot under a pawn has no rival that strong.
#: Measured offline on the marks of the development set and the fourth to seventh fresh
#: sets: 6 knots of 4196 mended, none lost (from 0.75 to 1.25 pawn widths, a slack of
#: 0.05 or 0.1, the same). Where the photo can be looked at again, the mark in the
#: open is taken only if its mean over the eight views is at least the first choice's:
#: a knot squeezed beside its pawn is marked faintly from above, and a lump in the open
#: about as faintly (300166: the knot 0.21 against a lump 0.26; means 0.25 and 0.23).
#: Over four fresh sets and the dev photos the rule without the eight views changed 4
#: choices: the three right ones had the mark in the open higher in the mean by
#: 0.03-0.46, the wrong one (300166) lower by 0.02.
PAWN_BASE_WIDTHS = 1.0
OPEN_KNOT_SLACK = 0.05
#: A loop's knot taken on a faint mark or none (under KNOT_SCORE: the tracer's lump, or
#: a faint mark) within CROSSING_KNOT_WIDTHS pawn widths of a crossing of its loop gives
#: way to the strongest knot mark from OWN_CORD_KNOT_SCORE that lies within reach of
#: that loop alone and at least as far from each of its crossings. No knot lies on a
#: crossing (RULES), yet a crossing is a lump, and the demons of its corners stand
#: within a pawn width of it with their bases beside the cords: the tracer finds a lump
#: with tails there as readily as at a knot (590169: the green knot under a demon on
#: felt, marked 0.16, against a lump 0.3 pawn widths from a crossing). It overrules the
#: earlier choices on purpose, a knot found by its shape or one the eight views chose
#: too, and a mark away from crossings need not be stronger than the one beside it
#: (600141: 0.10 in the open against 0.12 beside a crossing): the eight views do not
#: tell them apart (the true knots of 590169 and 600141 score 0.05 and 0.01 there). Nor
#: is it kept from the loop's own pawns: a knot may lie beside its demon (620164).
CROSSING_KNOT_WIDTHS = 1.0
#: Last, given the knot checker (:mod:`vision.knot_check`), each loop's knot is asked
#: about; where the checker gives it under KNOT_DOUBT, the loop's CHECKED_CONTENDERS
#: strongest marks and the tracer's knot beyond the knot's reach are asked about too,
#: and the likeliest becomes the knot if the checker gives it at least CHECKED_KNOT and
#: the eight views mark it at most CHECKED_SLACK less than the knot. The checker is this
#: generator's as much as the detector is: the first checker gave two of the dev photos'
#: knots (dev_0017 red, dev_0018 blue, marked 0.49, 0.50 and 0.46 in the views) under 0.25
#: and places beside them 0.84-0.89, which the views mark 0.05-0.25. Replayed on the knot
#: stages of 800 hard photos (3200 knots): 4 knots more right, none lost; of the 22
#: knots read wrong on the sixty-sixth session's sets, 3 more right; dev photos the
#: same. (The slack: 0.1 leaves one of the 800 wrong, 0.3 loses a dev photo's knot.)
#: KNOT_DOUBT was 0.2 with the first checker; the second (seventy-first session, trained
#: with more knots, more places along the cords and 300 photos on felt and the mat) is
#: surer of knots and of what is none, and 0.6 suits it: replayed, 3200 knots of hard
#: photos and the 43 photos of two failure sets, 0.2 -> 0.6 won 3 knots and lost none
#: (0.45 one fewer, 0.8 loses a dev photo's). Read whole, that checker lost dev_0004's
#: red knot at either threshold (given 0.19; a plain cord along its long shadow 0.81);
#: the third, which ships, was trained under cast shadows and keeps it (replayed, 0.45
#: and 0.6 the same). A knot at the base of a pawn of its loop's colour is doubted
#: also where the checker asked eight ways gives it under KNOT_DOUBT (1700199: a blue
#: demon's base on its cord, 0.76 in one crop, 0.29 eight ways; the true knot in the
#: open 1.0 both ways). Replayed (ninety-fifth session) on the 792 hard photos of
#: 1660000-1770000, the 804 easy and normal ones of 1720000-1770000 and the dev photos:
#: 1700199's knot set right, none lost.
CHECKED_CONTENDERS = 4
KNOT_DOUBT = 0.6
CHECKED_KNOT = 0.8
CHECKED_SLACK = 0.2
#: A loop still without a knot (no mark on it, no lump the tracer took for one) is given
#: the place along it that the knot checker finds likeliest, whatever its odds, asked
#: every KNOT_SCAN_STEP pawn widths: every loop has one knot (RULES), and a knot put on
#: the right stretch between two crossings counts in the right fields. (Seventy-sixth
#: session: 6 such loops in 1599 fresh photos, each traced through its knot; the
#: checker likeliest within 0.3 widths of it on five. Asked every fifth of a width, it
#: misses one of those peaks: they are that narrow.) Crossings need no keeping out:
#: the checker learnt them as no knots. The places are asked KNOT_SCAN_BATCH at a time
#: (the crops of one pass, 80 x 80 pixels each, are held at once), at most
#: KNOT_SCAN_MOST a loop (a loop is some 60 pawn widths round: 600 places).
KNOT_SCAN_STEP = 0.1
KNOT_SCAN_BATCH = 256
KNOT_SCAN_MOST = 2000
#: A contender for a doubted knot is asked about where it lies and along its loop
#: within CHECKED_ALONG pawn widths either side, every KNOT_SCAN_STEP, and counts with
#: its likeliest answer, at the place that gave it (the knot, asked alike, is the bar
#: it must beat, not a place to move to): the checker says whether a knot lies
#: within vision.knot_check.KNOT_REACH (0.3) pawn widths, yet its odds peak narrowly,
#: and a mark lies a little off the loop and off the knot's middle (1200159: the
#: yellow knot's two marks given 0.14 and 0.26 where they are, 0.43 and 0.47 on the
#: loop beside them, 0.88 a tenth of a width along it).
CHECKED_ALONG = 0.3
#: ... but only a place at least CHECKED_APART pawn widths from the knot: the checker
#: answers whether a knot lies within vision.knot_check.KNOT_REACH of where it is
#: asked, so two places nearer than twice that may be answered about the same knot, and
#: a place nearer the knot (along the loop) is asked at its point only. Asked
#: along, a mark 0.33 widths from a right knot (1180237, given 0.70 where it lay, the
#: knot 0.11) reached 0.92 and took the knot 18 px off; and a wrong knot 0.51 widths
#: from the true one (1180295, 0.30 where it stood, the true knot's mark 0.84) reached
#: 0.89 a tenth of a width towards it and kept its place.
CHECKED_APART = 2 * KNOT_REACH
#: A knot on a mark the eight views do not put in question (KNOT_CONTEST or more, its
#: ``knot_mark``) moves only where they mark the other place at least as much: no
#: slack (seventy-sixth session). Of the 18 knots the checker moved in the knot stages
#: of 1199 fresh hard photos, five stood on marks of 0.49-0.60 (views' means
#: 0.36-0.50): the three moved wrong (1170055, 1170148, 1170231) went where the views
#: mark 0.02-0.11 less (a demon's base on the cord, the tracer's lump); the two others
#: where they mark more (1180188: 0.50 against 0.39, set right; 1180568, right both
#: ways). Replayed: 3 knots won, none lost; dev photos the same. Not so for a knot at
#: the base of a pawn of its loop's colour (PAWN_BASE_WIDTHS), which the views mark as
#: surely as a knot (1770176: a blue demon's base on its cord, 0.51, views 0.465,
#: checker 0.16, against the true knot's 0.999 and views 0.46). Replayed (ninety-fifth
#: session) on the 792 hard photos of 1660000-1770000, the 1608 easy and normal ones of
#: 1660000-1770000 and the dev photos: 1770176's knot set right, one other moved 23 px
#: along its loop (right either way); none lost.
SURELY_MARKED_KNOT = KNOT_CONTEST
#: The views' slack (CHECKED_SLACK) is for a place the checker is sure of: asked eight
#: ways (:func:`vision.knot_check.turned_knot_odds`), it must give the place at least
#: CHECKED_TURNED, as one crop must CHECKED_KNOT; else the views must mark the place at
#: least as much as the knot (1410137: a right blue knot on the blue mat, 0.04 eight
#: ways and 0.43 in the views, gave way to a blue demon's base on its cord, 0.71 and
#: 0.24). Refusing every move under CHECKED_TURNED instead lost a right move (1350192:
#: 0.75 eight ways, the views 0.47 against 0.33). Replayed (eighty-fourth session) on the
#: knot stages of 660 hard photos of 1320000-1410000, 1170055, 1170148, 1170231 and the dev photos:
#: that knot and 1320158's won, none lost.
CHECKED_TURNED = 0.8
#: A knot the checker, asked about its crop turned the eight ways, gives odds under
#: RULED_OUT_KNOT is ruled out where the eight views mark the place along its loop that
#: the checker finds likeliest (at least CHECKED_APART pawn widths from it) more than the
#: knot, and at least VIEWED_KNOT, and the checker asked eight ways gives that place more
#: than the knot: the knot moves there (:func:`_knots_ruled_out`; ninetieth session).
#: The checker alone will not do: of the 39 knots it gave under 0.05 eight ways on the
#: 792 hard photos of 1500000-1610000, 30 were right (a knot under or beside a pawn, on
#: a table of its hue), and the views marked every one of those more than the checker's
#: likeliest place, but one they marked neither (1590189: 0.00 at the knot, 0.04 there;
#: hence the floor). Of the nine wrong ones, the views marked the likeliest place more
#: on four, and it lay on the true knot (1530156, 1590164, 1590173, 1590182: a small
#: knot half hidden by a pawn, or of the table's hue, given 0.56-0.997 along its loop,
#: while the knot stood on a faint lump at a pawn's base); the eight ways gave it more
#: there on all four. Any threshold from 0.05 to 0.2 picks the same four. A knot where
#: the tracer found one surely by its shape (SHAPED_KNOT: a lump the separate stage set
#: apart, or plain tails) stays: the checker and the views may both miss a knot that
#: looks unlike the generator's (dev_0017: the dev renderer's blue knot, on such a lump,
#: 0.02 eight ways and 0.06 in the views, against a place 0.79 along its loop, 0.13 in
#: the views). (1530156's knot stood 0.33 pawn widths from its tracer's lump, beyond
#: reach: it moves.)
RULED_OUT_KNOT = 0.1
VIEWED_KNOT = 0.1
SHAPED_KNOT = 1.0


def combine_pawns(
    seen: Pawns,
    detections: Detections,
    look_again: Callable[[Detection], Detection] | None = None,
    *,
    table_hue_colour: str | None = None,
    loops: Loops | None = None,
    demon_odds: Callable[[list[Point]], Sequence[float]] | None = None,
) -> Pawns:
    """The pawns of the colour rules, checked against the detector's marks.

    Parameters
    ----------
    seen : Pawns
        What the colour rules found.
    detections : Detections
        What the detector marked in the same photo (same pixels).
    look_again : callable, optional
        Scores a faint mark again (the reader passes :func:`vision.detect.look_again`
        on the photo): a mark from :data:`CONFIRM_FROM` that no pawn kept stands at,
        and no pawn of its colour within :data:`BESIDE_OWN_SHARE` of a pawn width, is
        added when that score is at least :data:`CONFIRMED_ADD_SCORE` (a ghost
        :data:`CONFIRMED_GHOST_SCORE`); so is a mark from :data:`ADD_SCORE` up to
        :data:`UNSURE_ADDED` (with no look again, from ADD_SCORE on). Where the eight
        views look at such a mark, the detector's fainter marks of another kind or
        colour at the same place are looked at the same way, and of those confirmed the
        one they mark most is added. A pawn of the
        rules kept on a mark under CONFIRM_FROM is dropped where the eight views mark
        it less than :data:`KEEP_SCORE` (a demon, also where ``demon_odds`` rules it
        out), and is as sure as their mean where it stays; one the rules read as a
        demon turns into a ghost where the views mark the detector's unsure ghost there
        more, and at least :data:`LIKELIER_GHOST_SCORE` (:func:`_likelier_ghost`),
        unless the demon is of the table's hue (``table_hue_colour``); one the rules read as a
        ghost, at which the detector's sure mark is a demon, stays a ghost where it
        marks a ghost there too and the views mark that more, on the same terms
        (:func:`_ghost_kept`). Ghost marks are looked at again from the fainter
        :data:`FAINT_GHOST_FROM`.
    table_hue_colour : str, optional
        The line colour whose hue an even table has
        (:attr:`vision.colour.ColourMasks.table_hue_colour`). A demon of that colour is
        not turned into a ghost by the eight views: against its table it looks pale.
    loops : Loops, optional
        The loops traced in the same photo (same pixels): a ghost mark under
        CONFIRM_FROM within :data:`FAINT_GHOST_CLEAR_OF_CROSSING` pawn widths of
        where two of them cross is not looked at again.
    demon_odds : callable, optional
        The demon checker's odds at places (:func:`vision.demon_check.demon_odds`
        bound to the photo): a demon of the rules kept on a mark under CONFIRM_FROM
        is dropped, like one the eight views do not mark, where it gives the mark
        under :data:`RULED_OUT_FAINT_DEMON`; it is asked only after the views (when
        given) confirm the demon, and not about a demon of ``table_hue_colour``. A
        demon added on a mark under :data:`UNSURE_ADDED` is as sure as UNSURE_ADDED,
        without its "seen only by its shape" warning, where it gives it at least
        :data:`SHAPED_DEMON_CHECKED` (a ghost is not asked about).

    Returns
    -------
    Pawns
    """
    # The detector's width: it looks again for smaller pawns where the rules' blobs
    # were pawns with their shadows (vision.detect.detect_checking_size).
    width = detections.pawn_width
    marks = one_mark_per_pawn(detections.pawns(min_score=0.0), width)
    traced = loops.loops.values() if loops is not None else []
    rings = [LinearRing(np.asarray(loop.points)) for loop in traced]
    taken: set[int] = set()
    pawns: list[SeenPawn] = []
    # The rules' ghosts kept on marks under FAINT_RULES_GHOST, and those marks' scores.
    faintly_marked: dict[int, float] = {}
    unmarked_ghosts: list[SeenPawn] = []  # the rules' ghosts no mark kept
    for pawn in seen.pawns:
        # The strongest mark near the pawn, not the nearest: the detector may mark one
        # pawn twice, faintly beside surely, and the sure mark left over would be
        # added as a second pawn (240176, 250193: a green demon read twice).
        reach = SAME_PAWN * own_width(pawn, width, seen.pawn_width)
        index = _strongest_within(pawn.foot, marks, taken, reach)
        if index is None or marks[index].score < KEEP_SCORE:
            if pawn.kind == GHOST:
                unmarked_ghosts.append(pawn)
            continue
        taken.add(index)
        mark = marks[index]
        # The foot is the detector's; so are the kind and colour where it is sure (but
        # a rules' ghost the eight views mark more than the sure demon stays one, as
        # sure as their mean), and a ghost's where it marks no pawn of the rules' kind
        # and colour there at all (then the pawn is only as sure as that mark) or the
        # eight views mark the ghost more (then as sure as their mean); a pawn kept on
        # a faint mark is as sure as the views' mean (below).
        confidence = max(pawn.confidence, mark.score)
        confirmed_in_views = False  # a ghost the eight views chose: not looked at twice
        if mark.colour != pawn.colour:
            if mark.score >= SURE_COLOUR:
                kept = _ghost_kept(pawn, mark, detections, width, look_again, table_hue_colour)
                if kept is None:
                    pawn = replace(pawn, kind=mark.kind, colour=mark.colour)
                else:
                    confidence = kept.score
                    confirmed_in_views = True
            elif mark.kind == GHOST and not _marked_as(pawn, mark.xy, detections, width):
                pawn = replace(pawn, kind=GHOST, colour=WHITE)
                confidence = mark.score
            elif (
                mark.kind == GHOST and look_again is not None and pawn.colour != table_hue_colour
            ):
                # A demon of the table's hue stays a demon: against its table it looks
                # pale, and the views mark a ghost there more (dev_0015: a green demon
                # on green felt).
                ghost = _likelier_ghost(pawn, mark, look_again)
                if ghost is not None:
                    pawn = replace(pawn, kind=GHOST, colour=WHITE)
                    confidence = ghost.score
                    confirmed_in_views = True
        if mark.score < CONFIRM_FROM and not confirmed_in_views:
            # Faintly marked in the one view, the pawn must be marked in the eight too:
            # a ghost's shadow on a white table, the rules' ghost by its outline, is
            # marked 0.12 in the one view and 0.0 in the mean (310088); the five rules'
            # pawns kept on faint marks over two generated sets (420 photos), all true,
            # 0.2-0.35 in the mean. The pawn as read is looked for (after the turn to a
            # ghost above): a faint mark of another colour does not keep a demon the
            # views do not mark. A demon the views do mark must not be ruled out by the
            # demon checker either (a pawn's reddish shadow on dark wood: 1660147).
            # Its mark stays taken: no other pawn is kept on it.
            mean = _score_in_the_views(pawn, mark, look_again)
            if (mean is not None and mean < KEEP_SCORE) or _demon_ruled_out(
                pawn, mark, demon_odds, table_hue_colour
            ):
                continue
            if mean is not None:
                # As sure as the views see it, as a pawn added on a faint mark is: the
                # rules are as sure of a shadow or a playing card's corner as of a pawn
                # (1700176: a green card's corners, the rules 0.75-1.0, the views
                # 0.13 and 0.31), and the overlay rings it for a look.
                confidence = mean
        pawns.append(replace(pawn, foot=mark.xy, confidence=confidence))
        if mark.score < FAINT_RULES_GHOST and pawn.kind == GHOST:
            faintly_marked[id(pawns[-1])] = mark.score
    added: list[Detection] = []
    not_confirmed: list[Detection] = []  # as looked at again
    # Where the one view marks a pawn in two maps, the eight views may see the fainter
    # kind or colour there, not the stronger (540167: a ghost against a blue demon's
    # shadow, marked 0.29 a blue demon and 0.19 a ghost, 0.28 and 0.35 in the mean;
    # 560101: a red demon on dark wood, 0.54 a ghost and 0.18 a red demon, 0.35 and
    # 0.40 in the mean): each is looked at, and the one they mark most is added.
    marked_twice = detections.pawns(min_score=FAINT_GHOST_FROM)
    def at_a_kept_pawn(xy: tuple[float, float], own: bool = True) -> bool:
        # A kept pawn's reach is its blob's width (``own``), but a mark from ADD_SCORE,
        # which the eight views then look at, is kept out only within the detector's
        # width: two pawns touching are one wide blob of the rules, and a mark at the
        # second one's foot lies inside its reach (560147: two ghosts touching, their
        # blob 1.7 pawns wide, the second marked 0.43 and 0.41 in the mean, 0.67 of a
        # width from the first). The views tell it from a second mark of one wide pawn
        # (dev_0012).
        def reach(pawn: SeenPawn) -> float:
            return SAME_PAWN * (own_width(pawn, width, seen.pawn_width) if own else width)

        return any(math.dist(xy, p.foot) < reach(p) for p in pawns)

    for index, mark in enumerate(marks):  # strongest first
        sure = look_again is not None and mark.score >= ADD_SCORE
        if index in taken or at_a_kept_pawn(mark.xy, own=not sure):
            continue
        # Within a wide blob's reach, even a mark taken without a look is looked at.
        in_a_wide_blob = sure and at_a_kept_pawn(mark.xy)
        chosen, looked = _mark_to_add(
            mark, pawns, rings, unmarked_ghosts, look_again, width, in_a_wide_blob
        )
        if looked is not None and look_again is not None:
            others = [m for m in marked_twice if (m.kind, m.colour) != (mark.kind, mark.colour)
                      and math.dist(m.xy, mark.xy) < SAME_PAWN * width]
            best = looked.score if chosen is not None else -1.0
            pale_demon = looked if _pale_demon(mark, looked, table_hue_colour) else None
            for other in sorted(others, key=lambda m: -m.score):
                # Kept out as the mark they stand beside: inside a wide blob, the pawn
                # touching the kept one may be marked as another kind there too.
                if at_a_kept_pawn(other.xy, own=not sure) or _passed_over(
                    other, pawns, rings, width
                ):
                    continue
                again = look_again(other)
                if again.score > best and (
                    _confirmed(again) or _seen_by_the_rules(again, unmarked_ghosts, width)
                ):
                    chosen, best = again, again.score
                if pale_demon is None and _pale_demon(other, again, table_hue_colour):
                    pale_demon = again
            if chosen is not None and chosen.kind == GHOST and pale_demon is not None:
                # A demon of the table's hue looks pale against it, and the views may mark
                # a ghost there more (570151: a blue demon on the blue mat, 0.34 as a blue
                # demon and 0.31 as a ghost, 0.31 and 0.36 in the mean): where they mark
                # it as much as a missed demon of that hue, it is the demon, as a rules'
                # demon of that hue stays one (see _likelier_ghost).
                chosen = pale_demon
        if chosen is None:
            if looked is not None and mark.score >= CONFIRM_FROM:
                not_confirmed.append(looked)
            continue
        pawns.append(SeenPawn(chosen.kind, chosen.colour, chosen.xy, width, round(chosen.score, 2)))
        added.append(chosen)
    # The rules may put a tall ghost's foot in its shadow, most of a pawn width from
    # the detector's surer mark of it, or split a ghost and its shadow into two; the
    # detector marks there faintly too: the faint one is the same ghost. Or they put
    # it at its head, marked less than its foot (FAINT_RULES_GHOST). (A field holds one
    # ghost, so ghosts touching are rare; not so demons: two of a colour touching stand
    # as near, and one of them may be marked faintly.)
    def same_ghost(ghost: SeenPawn) -> bool:
        surer_from, reach = (
            (CONFIRM_FROM, 1.0) if faintly_marked[id(ghost)] < CONFIRM_FROM
            else (FAINT_RULES_GHOST, HEAD_REACH)
        )
        surer = [p for p in pawns if faintly_marked.get(id(p), 1.0) >= surer_from]
        return _beside_own_colour(ghost, surer, reach * width)

    pawns = [p for p in pawns if id(p) not in faintly_marked or not same_ghost(p)]
    # The rules' doubts where they still hold for the pawns kept, then the pawns only
    # the shape showed, and not surely (a demon the checker confirms is sure enough).
    checked = _demons_checked_sure(
        [m for m in added if m.score < UNSURE_ADDED and m.kind == DEMON], demon_odds
    )
    pawns = [
        replace(p, confidence=UNSURE_ADDED) if (p.kind, p.colour, p.foot) in checked else p
        for p in pawns
    ]
    warnings = [w for w in seen.warnings if _still_doubtful(w, pawns, width, detections)]
    warnings += [
        Remark(f"a {mark.colour} {mark.kind} at {{at}} seen only by its shape", mark.xy,
               SHAPE_ONLY)
        for mark in added
        if mark.score < UNSURE_ADDED and (mark.kind, mark.colour, mark.xy) not in checked
    ]
    warnings += [
        Remark(missed_pawn_warning(mark.colour, mark.kind, "{at}"), mark.xy, MAYBE_MISSED)
        for mark in not_confirmed
        if _touching_doubt(mark, pawns, width)
    ]
    return Pawns(pawns, pawn_width=width, warnings=warnings)


def _mark_to_add(
    mark: Detection,
    pawns: list[SeenPawn],
    rings: list[LinearRing],
    unmarked_ghosts: list[SeenPawn],
    look_again: Callable[[Detection], Detection] | None,
    width: float,
    look_even_if_sure: bool = False,
) -> tuple[Detection | None, Detection | None]:
    """Whether a mark no pawn stands at is a pawn to add (see :func:`combine_pawns`):
    the mark to add (as scored again in the eight views where it was) or None, and the
    mark as scored again, where it was (else None). A mark from UNSURE_ADDED is taken
    without a look, unless ``look_even_if_sure``."""
    if (mark.score >= UNSURE_ADDED and not look_even_if_sure) or (
        mark.score >= ADD_SCORE and look_again is None
    ):
        return mark, None
    if look_again is None:
        return None, None
    if mark.score < ADD_SCORE:
        least = FAINT_GHOST_FROM if mark.kind == GHOST else CONFIRM_FROM
        if mark.score < least or _passed_over(mark, pawns, rings, width):
            return None, None
        looked = look_again(mark)
        confirmed = _confirmed(looked) or _seen_by_the_rules(looked, unmarked_ghosts, width)
        return (looked if confirmed else None), looked
    # Not quite sure: the detector may mark one pawn twice, the second peak on its body
    # or shadow, which falls off in the other views (250197: a ghost 0.41 a pawn width
    # below a ghost, 0.17 in the mean).
    looked = look_again(mark)
    return (mark if _confirmed(looked) else None), looked


def _passed_over(
    mark: Detection, pawns: list[SeenPawn], rings: list[LinearRing], width: float
) -> bool:
    """Whether a faint mark is not looked at again: beside a kept pawn of its colour
    (the same pawn marked twice), or a ghost's under CONFIRM_FROM at a crossing (so
    faint, there: no ghost stands there)."""
    return _beside_own_colour(mark, pawns, BESIDE_OWN_SHARE * width) or (
        mark.kind == GHOST
        and mark.score < CONFIRM_FROM
        and _at_a_crossing(mark.xy, rings, FAINT_GHOST_CLEAR_OF_CROSSING * width)
    )


def _score_in_the_views(
    pawn: SeenPawn, mark: Detection, look_again: Callable[[Detection], Detection] | None
) -> float | None:
    """How much, given ``look_again``, the eight views mark ``pawn`` (its kind and
    colour, at ``mark``) in the mean; None without ``look_again``."""
    if look_again is None:
        return None
    return look_again(replace(mark, kind=pawn.kind, colour=pawn.colour)).score


def _demons_checked_sure(
    marks: list[Detection], demon_odds: Callable[[list[Point]], Sequence[float]] | None
) -> set[tuple[str, str, Point]]:
    """(kind, colour, place) of each of ``marks`` (demons added on the shape alone) to
    which the demon checker gives at least :data:`SHAPED_DEMON_CHECKED`; none without
    a checker (a NaN answer confirms nothing)."""
    if demon_odds is None or not marks:
        return set()
    odds = demon_odds([m.xy for m in marks])
    return {(m.kind, m.colour, m.xy) for m, o in zip(marks, odds, strict=True)
            if o >= SHAPED_DEMON_CHECKED}


def _demon_ruled_out(
    pawn: SeenPawn,
    mark: Detection,
    demon_odds: Callable[[list[Point]], Sequence[float]] | None,
    table_hue_colour: str | None,
) -> bool:
    """Whether ``pawn``, a demon, is given odds under :data:`RULED_OUT_FAINT_DEMON` by
    the demon checker (``demon_odds``) at ``mark``, the foot it would take. A NaN
    answer rules out nothing, nor is a ghost asked about, nor a demon of
    ``table_hue_colour``: against its table it looks pale to the checker too (dev_0015,
    green demons on green felt in a low sun, given under 0.05)."""
    if demon_odds is None or pawn.kind != DEMON or pawn.colour == table_hue_colour:
        return False
    [odds] = demon_odds([mark.xy])
    return bool(odds < RULED_OUT_FAINT_DEMON)


def _likelier_ghost(
    pawn: SeenPawn, mark: Detection, look_again: Callable[[Detection], Detection]
) -> Detection | None:
    """The ghost ``mark`` scored again, where the eight views mark a ghost there more
    than a pawn of ``pawn``'s kind and colour, and at least
    :data:`LIKELIER_GHOST_SCORE`; else None.

    The detector's strongest mark at a pawn the rules read as a demon is a ghost, but
    under :data:`SURE_COLOUR`, and it marks the rules' demon there too, more faintly (or,
    from :func:`_ghost_kept`, the other way round: ``pawn`` the detector's sure demon at
    a rules' ghost, ``mark`` its ghost mark there): a
    ghost under a warm lamp looks yellow to both (290175, 360157: a ghost marked 0.48
    and 0.50 beside a yellow demon's 0.29 and 0.35; in the eight views 0.50 and 0.57
    against 0.23 and 0.22). Where the two are alike in every view (300197: 0.39 as a
    ghost, 0.42 as a blue demon) the rules' reading stands.
    """
    ghost = look_again(mark)
    if ghost.score < LIKELIER_GHOST_SCORE:
        return None
    own = look_again(Detection(pawn.kind, pawn.colour, mark.xy, 0.0))
    return ghost if ghost.score > own.score else None


def _ghost_kept(
    pawn: SeenPawn,
    mark: Detection,
    detections: Detections,
    width: float,
    look_again: Callable[[Detection], Detection] | None,
    table_hue_colour: str | None,
) -> Detection | None:
    """The ghost the colour rules read at ``mark``, scored again, where the detector's
    stronger mark there is a demon but it marks a ghost there too and the eight views
    mark the ghost more (:func:`_likelier_ghost`); else None.

    The mirror of a rules' demon the views turn into a ghost: under a harsh side light
    on the blue mat a ghost's shaded side reads yellow to the detector (1290170: a ghost
    marked 0.54 as a yellow demon and 0.38 as a ghost, 0.46 and 0.34 in the views; the
    colour rules and the ghost checker sure of a ghost). A demon of the table's hue is
    not put in question: against its table it looks pale in every view.
    """
    if (
        pawn.kind != GHOST
        or mark.kind != DEMON
        or look_again is None
        or mark.colour == table_hue_colour
        or not _marked_as(pawn, mark.xy, detections, width)
    ):
        return None
    as_read = replace(pawn, kind=DEMON, colour=mark.colour)
    return _likelier_ghost(as_read, replace(mark, kind=GHOST, colour=WHITE), look_again)


def _touching_doubt(looked: Detection, pawns: list[SeenPawn], width: float) -> bool:
    """Whether a mark looked at again and not confirmed is worth a warning: a pawn
    touching another, half behind it in the photo, is marked faintly in every view."""
    nearest = min((math.dist(looked.xy, p.foot) for p in pawns), default=math.inf)
    low, high = TOUCHING_DOUBT_REACH
    return looked.score >= TOUCHING_DOUBT and low * width <= nearest <= high * width


def add_centred_ghosts(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    look_again: Callable[[Detection], Detection],
    seen: Pawns | None = None,
    ghost_odds: Callable[[list[Point]], Sequence[float]] | None = None,
) -> Pawns:
    """``pawns`` with the ghosts faintly seen at the centre of a field none stands in.

    For each bounded field of the board in which no ghost of ``pawns`` stands, the
    detector's ghost marks from :data:`CENTRED_GHOST_FROM` within :data:`CENTRE_REACH`
    pawn widths of its centre that no pawn stands at, and the ghosts the colour rules
    saw there (``seen``) but the detector did not mark, are looked at again
    (``look_again``, nearest the centre first); the first whose mean reaches
    :data:`CENTRED_GHOST_SCORE` is added as a ghost, with a warning that says it was
    seen only faintly (:data:`vision.creatures.FAINTLY_SEEN`: the ghost checker may take
    it away later, :func:`without_faint_ghosts_checked_away`).

    Parameters
    ----------
    geometry : BoardGeometry
        Of the board the loops make, working pixels (shared with the place stage,
        whose caches it fills).
    pawns : Pawns
        The pawns read so far (:func:`combine_pawns`).
    detections : Detections
        The detector's marks in the same pixels.
    look_again : callable
        :func:`vision.detect.look_again` bound to the photo.
    seen : Pawns, optional
        What the colour rules found (:func:`combine_pawns` drops the pawns the detector
        does not mark; a ghost on a white table may be one, 320107).
    ghost_odds : callable, optional
        The odds that a ghost stands at each of some places (the reader passes
        :func:`vision.ghost_check.ghost_odds` bound to the photo): a field whose faint
        marks the views do not confirm (the detector's, and the colour rules' ghosts)
        takes a ghost at the mark nearest its centre where the odds at the centre, or at
        that mark, are at least :data:`CHECKED_GHOST` and the views' mean there
        :data:`CHECKED_GHOST_MEAN` (see :func:`_checked_ghosts`).

    Returns
    -------
    Pawns

    Notes
    -----
    Given ``ghost_odds``, a demon read at a faint ghost mark near the centre of a field
    with no ghost is first read as a ghost where the checker says so
    (:func:`_ghosts_read_as_demons`).
    """
    width = detections.pawn_width
    board = geometry.board
    if ghost_odds is not None:
        pawns = _ghosts_read_as_demons(geometry, pawns, detections, ghost_odds)
    with_ghost = {geometry.field_at(p.foot) for p in pawns.pawns if p.kind == GHOST}
    # A stronger demon's mark at a ghost's, that no pawn was read at, does not hide it
    # (300197: a ghost marked 0.17 under a blue demon's 0.35). A demon's mark keeps the
    # other way round: where a field's centre is, a ghost is the likelier of the two.
    marks = _unread_marks(
        detections, pawns, GHOST, CENTRED_GHOST_FROM, SAME_PAWN * width, own_kind_only=True
    )
    shaped = [] if seen is None else _unkept_ghosts(seen, pawns, marks, width)
    marks += shaped
    added: list[SeenPawn] = []
    # Fields whose faint marks the views did not confirm: the field, its centre, the
    # mark nearest it (the detector's or the colour rules') and that mark's mean in the
    # views.
    unconfirmed: list[tuple[int, Point, Detection, float]] = []
    for field in board.fields:
        if field.outer or field.id in with_ghost or not marks:
            continue
        centre = geometry.field_centre(field.id)
        near = sorted(
            (m for m in marks if math.dist(m.xy, centre) <= CENTRE_REACH * width),
            key=lambda m: math.dist(m.xy, centre),
        )
        means = []
        for mark in near:
            again = look_again(mark)
            if again.score >= CENTRED_GHOST_SCORE:
                added.append(SeenPawn(GHOST, WHITE, mark.xy, width, round(again.score, 2)))
                marks.remove(mark)
                break
            means.append((mark, again.score))
        else:
            # The detector's faint marks, and the colour rules' ghosts (marks of 0): a
            # ghost half hidden by the demon it touches may be no more (690187).
            marked = [
                (m, mean) for m, mean in means if m.score >= CENTRED_GHOST_FROM or m in shaped
            ]
            if marked:
                unconfirmed.append((field.id, centre, *marked[0]))
    text = "a ghost at {{at}} seen faintly, taken for the centre of its field"
    pawns = _with_added(pawns, added, text, FAINTLY_SEEN)
    if ghost_odds is None or not unconfirmed:
        return pawns
    return _with_added(
        pawns,
        _checked_ghosts(geometry, pawns, unconfirmed, ghost_odds, width),
        "a ghost at {{at}} seen faintly, and by the ghost checker, at the centre of its field",
    )


def _ghosts_read_as_demons(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    ghost_odds: Callable[[list[Point]], Sequence[float]],
) -> Pawns:
    """``pawns`` with each demon that the ghost checker takes for a ghost read as one.

    A ghost under a warm lamp looks yellow, and the colour rules and the detector may
    both read it as a yellow demon (850165: a ghost at its field's centre read as a
    yellow demon in the corner beside it), while the detector marks a ghost there too,
    faintly. A demon (of any colour: the checker's odds are the cue, not the colour)
    with a ghost mark from :data:`CENTRED_GHOST_FROM` within :data:`SAME_PAWN` pawn
    widths, which lies within :data:`DEMON_AT_GHOST_REACH` pawn widths of the centre
    of the field it is in, a field in which no ghost stands, and not within SAME_PAWN
    of a ghost read (its own mark), is read as a ghost at that mark where the ghost
    checker's odds there reach :data:`CHECKED_GHOST`, with a warning; its confidence is
    the mark's score. One ghost a field and one demon a mark (the nearest), the
    likeliest first. The checker is asked once, about all such marks. (Sixty-ninth
    session, over 2400 generated photos: of the 235 demons read with a ghost mark at
    them within a pawn width of an empty field's centre, the 3 that were ghosts had odds
    0.998-1.0 there, the others at most 0.03; eighty-eighth, over 528 hard photos, up to
    three widths from the centre: 218 demons at most 0.0044, 2 ghosts 0.99 and more.)
    """
    width = detections.pawn_width
    reach = SAME_PAWN * width
    ghosts = [p.foot for p in pawns.pawns if p.kind == GHOST]
    with_ghost = {geometry.field_at(foot) for foot in ghosts}
    # (index of the demon in pawns, the ghost mark at it, the mark's field)
    doubted: list[tuple[int, Detection, int]] = []
    for mark in detections.pawns(min_score=CENTRED_GHOST_FROM):
        if mark.kind != GHOST or any(math.dist(mark.xy, foot) < reach for foot in ghosts):
            continue
        field = geometry.field_at(mark.xy)
        if geometry.board.fields[field].outer or field in with_ghost:
            continue
        if math.dist(mark.xy, geometry.field_centre(field)) > DEMON_AT_GHOST_REACH * width:
            continue
        demons = [
            (math.dist(mark.xy, p.foot), i)
            for i, p in enumerate(pawns.pawns)
            if p.kind == DEMON and math.dist(mark.xy, p.foot) < reach
        ]
        if demons:
            doubted.append((min(demons)[1], mark, field))
    if not doubted:
        return pawns
    odds = ghost_odds([mark.xy for _, mark, _ in doubted])
    read = list(pawns.pawns)
    warnings = list(pawns.warnings)
    turned: set[int] = set()
    for (index, mark, field), ghost in sorted(
        zip(doubted, odds, strict=True), key=lambda pair: -pair[1]
    ):
        if ghost < CHECKED_GHOST or index in turned or field in with_ghost:
            continue
        demon = read[index]
        read[index] = SeenPawn(GHOST, WHITE, mark.xy, demon.width, round(mark.score, 2))
        turned.add(index)
        with_ghost.add(field)
        warnings.append(Remark(
            f"a ghost at {{at}}, read first as a {demon.colour} demon, is a ghost to the "
            "ghost checker", mark.xy))
    return Pawns(read, pawn_width=pawns.pawn_width, warnings=warnings)


def _checked_ghosts(
    geometry: BoardGeometry,
    pawns: Pawns,
    unconfirmed: list[tuple[int, Point, Detection, float]],
    ghost_odds: Callable[[list[Point]], Sequence[float]],
    width: float,
) -> list[SeenPawn]:
    """The ghosts the checker sees at the unconfirmed faint marks of
    :func:`add_centred_ghosts` (field, centre, mark, mean in the views).

    The checker is the second cue: the detector's faint mark, or a ghost the colour
    rules saw, and its odds agree. (Asked alone about every empty field's centre, a
    first checker added ghosts where none stood on 2 of 840 generated photos and 1 of
    the 18 dev photos, for 1 board won; :func:`add_checked_centre_ghosts` asks there
    with the views' mean from 0.2 as the second cue.)
    It is asked at the centre and at the mark, as its odds fall as a ghost's foot
    moves from the crop's middle, and the likelier of the two counts. A ghost is added
    only inside the field asked about, in which no ghost stands yet, and not within
    :data:`CHECKER_CLEAR_OF_GHOST` pawn widths of a ghost round a place whose odds
    reached :data:`CHECKED_GHOST` (one inside the checker's crop, which its odds may be
    about), and only where the views' mean reaches :data:`CHECKED_GHOST_MEAN`. Its
    confidence is that mean: it was added on faint evidence, and the overlay rings it
    as unsure.
    """
    both = ghost_odds([place for _, centre, mark, _ in unconfirmed for place in (centre, mark.xy)])
    ghosts = [p for p in pawns.pawns if p.kind == GHOST]
    with_ghost = {geometry.field_at(p.foot) for p in ghosts}
    checked: list[SeenPawn] = []
    clear = CHECKER_CLEAR_OF_GHOST * width
    for i, (field, centre, mark, mean) in enumerate(unconfirmed):
        # The places whose odds say yes: a ghost read near one of them may be what they saw.
        asked = ((centre, both[2 * i]), (mark.xy, both[2 * i + 1]))
        sure = [place for place, odds in asked if odds >= CHECKED_GHOST]
        if not sure or field in with_ghost or geometry.field_at(mark.xy) != field:
            continue
        if not mean >= CHECKED_GHOST_MEAN:  # (a NaN mean sees nothing)
            continue
        if any(math.dist(p, g.foot) < clear for p in sure for g in ghosts):
            continue
        ghost = SeenPawn(GHOST, WHITE, mark.xy, width, round(mean, 2))
        checked.append(ghost)
        ghosts.append(ghost)
        with_ghost.add(field)
    return checked


def add_checked_centre_ghosts(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    look_again: Callable[[Detection], Detection],
    ghost_odds: Callable[[list[Point]], Sequence[float]],
) -> Pawns:
    """``pawns`` with a ghost near the centre of each bounded field in which none stands
    where the ghost checker sees one and the detector's eight views confirm it.

    Run after :func:`add_centred_ghosts`, which looks only where the detector marked a
    ghost, however faintly, or the colour rules saw one: a ghost standing on a cord on
    a white table may be marked by neither (1280185). The checker is asked at each such
    field's centre and, where its odds there reach :data:`RING_FROM`, at six places
    :data:`CENTRE_RING` pawn widths round it inside the field; the likeliest place
    whose odds reach :data:`CHECKED_GHOST`, with no pawn within half a pawn width (that
    pawn is what the checker saw) and no ghost within
    :data:`vision.ghost_check.CLEAR_OF_GHOST` widths (where it was taught neither yes
    nor no), takes a ghost where the views' mean of one there reaches
    :data:`CENTRED_GHOST_SCORE`. The fields are taken likeliest first (by the odds at
    their centres), so a ghost added keeps the next one's place clear as one read does.
    That 0.9 widths, not :data:`CHECKER_CLEAR_OF_GHOST` as for a mark: the views' mean
    asked here is the stricter second cue, and it is the place's own (1270070: a ghost
    1.7 widths from one read, 0.26 in the mean).

    Parameters
    ----------
    geometry : BoardGeometry
        Of the board the loops make, working pixels.
    pawns : Pawns
        The pawns read so far.
    detections : Detections
        The detector's marks (for the pawn width it looked for).
    look_again : callable
        :func:`vision.detect.look_again` bound to the photo.
    ghost_odds : callable
        :func:`vision.ghost_check.ghost_odds` bound to the photo.

    Returns
    -------
    Pawns
        With each added ghost's views' mean as its confidence, and a warning at it.
    """
    width = detections.pawn_width
    with_ghost = {geometry.field_at(p.foot) for p in pawns.pawns if p.kind == GHOST}
    empty = [f.id for f in geometry.board.fields if not f.outer and f.id not in with_ghost]
    if not empty:
        return pawns
    centres = [geometry.field_centre(field) for field in empty]
    at_centres = zip(ghost_odds(centres), centres, empty, strict=True)
    found: list[SeenPawn] = []
    for odds, centre, field in sorted(at_centres, key=lambda asked: -asked[0]):
        asked = [(odds, centre)]
        if odds >= RING_FROM:
            ring = [
                place for place in _places_round(centre, CENTRE_RING * width)
                if geometry.field_at(place) == field
            ]
            if ring:
                asked += zip(ghost_odds(ring), ring, strict=True)
        sure = [
            (odds, place) for odds, place in asked
            if odds >= CHECKED_GHOST and _clear_for_a_ghost(place, pawns.pawns + found, width)
        ]
        if not sure:
            continue
        place = max(sure)[1]
        mean = look_again(Detection(GHOST, WHITE, place, 0.0)).score
        if mean >= CENTRED_GHOST_SCORE:
            found.append(SeenPawn(GHOST, WHITE, place, width, round(mean, 2)))
    text = "a ghost at {{at}} seen by the ghost checker near its field's centre, and faintly "
    return _with_added(pawns, found, text + "in the detector's eight views")


def add_ghosts_behind_pawns(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    look_again: Callable[[Detection], Detection],
    ghost_odds: Callable[[list[Point]], Sequence[float]],
    foot_again: Callable[[Detection], Point | None] | None = None,
) -> Pawns:
    """``pawns`` with the ghosts half hidden by a pawn beside them.

    A ghost against a demon nearer a tilted camera shows only its head, and the
    detector marks it faintly. Each ghost mark from :data:`CENTRED_GHOST_FROM`, one per
    pawn among the marks of every kind (a stronger demon's mark at its place is the
    likelier pawn away from a field's centre), that stands clear of the pawns read (none
    within half a pawn width, no ghost within :data:`vision.ghost_check.CLEAR_OF_GHOST`
    widths) and within :data:`HIDDEN_GHOST_REACH` pawn widths of one of them is added as
    a ghost where the ghost checker's odds at it reach :data:`CHECKED_GHOST` and the
    views' mean :data:`CHECKED_GHOST_MEAN`, likeliest first. The checker was taught no
    only where no ghost's foot lies within CLEAR_OF_GHOST, and the second mark of a ghost
    read stands 0.55-0.85 widths from it with odds up to 1.0: nearer a ghost its yes may
    be about that ghost. Anywhere on the board (a ghost in the outer field is a
    violation to report), not off it, where it would count for nothing and the marks so
    sure are other things on the table (1350159: the pale rim of a playing card beside
    a green demon read on its green back).

    With ``foot_again`` the ghost stands at the foot the eight views give it, where that
    foot is as clear and on the board: the detector marks the head it sees, and the
    views' foot lies nearer the ghost's (1360197: 0.36 pawn widths from the truth's
    foot, the mark 0.48; 1360179: 0.20 and 0.44; 1360181: 0.65 and 0.62). Elsewhere, or
    where the views do not mark it, it stands at the mark. An added ghost keeps the next
    mark out both at its foot and at its mark.

    Parameters
    ----------
    geometry : BoardGeometry
        Of the board the loops make, working pixels (whether a mark is on the board).
    pawns : Pawns
        The pawns read so far.
    detections : Detections
        The detector's marks in the same pixels.
    look_again : callable
        :func:`vision.detect.look_again` bound to the photo.
    ghost_odds : callable
        :func:`vision.ghost_check.ghost_odds` bound to the photo.
    foot_again : callable, optional
        :func:`vision.detect.foot_in_views` bound to the photo (None where the views
        do not mark the pawn); the ghost stands at the mark without it.

    Returns
    -------
    Pawns
        With each added ghost's views' mean as its confidence, and a warning at it.
    """
    width = detections.pawn_width
    reach = HIDDEN_GHOST_REACH * width
    marks = [
        mark
        for mark in _unread_marks(detections, pawns, GHOST, CENTRED_GHOST_FROM, SAME_PAWN * width)
        if _clear_for_a_ghost(mark.xy, pawns.pawns, width)
        and any(math.dist(mark.xy, p.foot) <= reach for p in pawns.pawns)
        and _on_the_board(geometry, mark.xy, width)
    ]
    if not marks:
        return pawns
    found: list[SeenPawn] = []
    taken: list[SeenPawn] = []  # each added ghost as if it stood at its mark too
    asked = zip(ghost_odds([mark.xy for mark in marks]), marks, strict=True)
    for odds, mark in sorted(asked, key=lambda pair: -_or_zero(pair[0])):
        if not odds >= CHECKED_GHOST:  # (NaN odds see nothing)
            continue
        if not _clear_for_a_ghost(mark.xy, found + taken, width):
            continue
        mean = look_again(mark).score
        if not mean >= CHECKED_GHOST_MEAN:
            continue
        views = None if foot_again is None else foot_again(mark)
        others = pawns.pawns + found + taken
        foot = mark.xy
        if (
            views is not None
            and _clear_for_a_ghost(views, others, width)
            and _on_the_board(geometry, views, width)
        ):
            foot = views
        found.append(SeenPawn(GHOST, WHITE, foot, width, round(mean, 2)))
        taken.append(SeenPawn(GHOST, WHITE, mark.xy, width, round(mean, 2)))
    text = "a ghost at {{at}} half hidden by the pawn beside it, marked faintly, seen by "
    return _with_added(pawns, found, text + "the ghost checker")


def without_faint_ghosts_checked_away(
    pawns: Pawns, turned_ghost_odds: Callable[[list[Point]], Sequence[float]]
) -> Pawns:
    """``pawns`` without each ghost seen only faintly, where the ghost checker asked
    eight ways (:func:`vision.ghost_check.turned_ghost_odds`) gives it under
    :data:`FAINT_GHOST_DOUBT`; its remark goes with it.

    Seen only faintly: only the detector's shape showed it, and not surely (a
    :data:`vision.creatures.SHAPE_ONLY` remark at its foot, :func:`combine_pawns`), or
    it was taken near a field's centre on its mean in the views alone, a faint mark or a
    ghost the colour rules saw there (a :data:`vision.creatures.FAINTLY_SEEN` remark,
    :func:`add_centred_ghosts`).

    The detector marks a ghost faintly on a pale lump its views confirm: mostly a
    ghost, now and then a patch of table between long shadows (1420175: 0.42 on dark
    wood under a harsh side light, where nothing stands; the checker 0.002), or a
    crossing of two cords beside pawns (1440105: 0.24 in the views; the checker
    0.00003).
    """
    doubted = [w for w in pawns.warnings if w.about in FAINT_GHOST_REMARKS and w.at is not None]
    ghosts = [p for p in pawns.pawns
              if p.kind == GHOST and any(w.at == p.foot for w in doubted)]
    if not ghosts:
        return pawns
    odds = turned_ghost_odds([g.foot for g in ghosts])
    gone = [g.foot for g, o in zip(ghosts, odds, strict=True) if o < FAINT_GHOST_DOUBT]
    if not gone:
        return pawns
    kept = [p for p in pawns.pawns if not (p.kind == GHOST and p.foot in gone)]
    warnings = [w for w in pawns.warnings
                if not (w.about in FAINT_GHOST_REMARKS and w.at in gone)]
    return Pawns(kept, pawn_width=pawns.pawn_width, warnings=warnings)


def faint_demons_checked_as_ghosts(
    pawns: Pawns, turned_ghost_odds: Callable[[list[Point]], Sequence[float]]
) -> Pawns:
    """``pawns`` with each demon read less surely than :data:`UNSURE_ADDED` read as a
    ghost instead, as surely as it was, where the ghost checker asked eight ways
    (:func:`vision.ghost_check.turned_ghost_odds`) gives a ghost there at least
    :data:`FAINT_DEMON_GHOST`, and no ghost is read within
    :data:`vision.ghost_check.CLEAR_OF_GHOST` pawn widths (the checker was taught
    neither yes nor no that near one), nor of one it turned already (the surest
    first); the demon's own remarks go, and one says so.

    Under a harsh, warm side light the detector may mark a white ghost faintly as a
    demon of a cool colour and nowhere as a ghost (1580163: two ghosts on mustard cloth
    marked as blue demons, 0.25 and 0.29, where the colour rules saw white), and no
    later stage asks whether a ghost stands there; the checker gives them 0.997 and
    0.998 eight ways, and the demons read round them 0.0.
    """
    width = pawns.pawn_width
    ghosts = [p.foot for p in pawns.pawns if p.kind == GHOST]

    def clear_of(feet: list[Point], xy: Point) -> bool:
        return all(math.dist(xy, g) >= CLEAR_OF_GHOST * width for g in feet)

    faint = [
        i
        for i, p in enumerate(pawns.pawns)
        if p.kind == DEMON and p.confidence < UNSURE_ADDED and clear_of(ghosts, p.foot)
    ]
    if not faint:
        return pawns
    odds = turned_ghost_odds([pawns.pawns[i].foot for i in faint])
    # Surest first, each clear of the ghosts read and of those it already turned: one
    # ghost marked faintly in two colours stays one ghost.
    turned: dict[int, float] = {}
    for i, o in sorted(zip(faint, odds, strict=True), key=lambda io: -_or_zero(io[1])):
        foot = pawns.pawns[i].foot
        if o >= FAINT_DEMON_GHOST and clear_of([pawns.pawns[j].foot for j in turned], foot):
            turned[i] = o
    if not turned:
        return pawns
    kept = [
        replace(p, kind=GHOST, colour=WHITE) if i in turned else p
        for i, p in enumerate(pawns.pawns)
    ]
    # The demon's own remarks (they name it) go; any other at its foot stays.
    named = {(pawns.pawns[i].foot, f"{pawns.pawns[i].colour} demon") for i in turned}
    warnings = [w for w in pawns.warnings
                if not any(w.at == foot and name in w.text for foot, name in named)]
    warnings += [
        Remark(f"a demon seen faintly at {{at}} read as a ghost (the ghost checker: {o:.2f})",
               pawns.pawns[i].foot, FAINTLY_SEEN)
        for i, o in turned.items()
    ]
    return Pawns(kept, pawn_width=width, warnings=warnings)


def _on_the_board(geometry: BoardGeometry, xy: Point, width: float) -> bool:
    """Whether the engine's locator puts a ghost of ``width`` standing at ``xy`` on the
    board (in a field, the outer one too)."""
    [location] = geometry.locate([Foot(GHOST, WHITE, xy)], pawn_radius=width / 2)
    return not location.creature.off_board


def _or_zero(odds: float) -> float:
    """``odds``, or 0 where they are NaN (to sort by)."""
    return 0.0 if math.isnan(odds) else odds


def _places_round(centre: Point, radius: float, count: int = 6) -> list[Point]:
    """``count`` places evenly round ``centre`` at ``radius``."""
    return [
        (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))
        for angle in np.arange(count) * (2 * math.pi / count)
    ]


def _clear_for_a_ghost(place: Point, pawns: list[SeenPawn], width: float) -> bool:
    """Whether no pawn stands within half a pawn width of ``place``, and no ghost within
    :data:`vision.ghost_check.CLEAR_OF_GHOST` widths."""
    return all(
        math.dist(place, p.foot) >= (CLEAR_OF_GHOST if p.kind == GHOST else SAME_PAWN) * width
        for p in pawns
    )


def _unkept_ghosts(
    seen: Pawns, pawns: Pawns, marks: list[Detection], width: float
) -> list[Detection]:
    """The ghosts of the colour rules (``seen``) that no pawn of ``pawns`` was kept at,
    as marks of score 0, one per place: none within half its own width (as
    :func:`combine_pawns` matched them, :func:`own_width`) of a pawn kept, of one of
    ``marks`` or of one taken before."""
    found: list[Detection] = []
    for ghost in seen.pawns:
        if ghost.kind != GHOST:
            continue
        reach = SAME_PAWN * own_width(ghost, width, seen.pawn_width)
        taken = [p.foot for p in pawns.pawns] + [m.xy for m in marks + found]
        if all(math.dist(ghost.foot, xy) >= reach for xy in taken):
            found.append(Detection(GHOST, WHITE, ghost.foot, 0.0))
    return found


def add_cornered_demons(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    look_again: Callable[[Detection], Detection],
    *,
    table_hue_colour: str | None = None,
    demon_odds: Callable[[list[Point]], Sequence[float]] | None = None,
    ghost_odds: Callable[[list[Point]], Sequence[float]] | None = None,
) -> Pawns:
    """``pawns`` with the demons faintly marked in a corner of their colour (and, first,
    the ghosts read that both checkers take for demons, in a corner or in none).

    A demon's mark from :data:`CORNERED_DEMON_FROM`, which the engine's locator puts in
    a corner whose crossing is of the mark's colour (clearly, or where corners fit about
    as well, the one it picks: of the mark's colour where one is), is looked at again
    (``look_again``) and added when the mean reaches :data:`CORNERED_DEMON_SCORE` (a
    demon of ``table_hue_colour`` marked from :data:`CONFIRM_FROM`, from
    :data:`TABLE_HUE_DEMON_SCORE`), with a warning. No pawn may stand within half a
    pawn width of the mark, nor a demon within a whole width unless the locator puts it
    in another corner: two demons touching in neighbouring corners each have their
    own foot, while a second mark in the corner of a demon read is likelier that pawn
    marked twice (its foot and its head). Parameters and result as
    :func:`add_centred_ghosts`; ``table_hue_colour`` is that of :func:`combine_pawns`.
    Given ``demon_odds`` (:func:`vision.demon_check.demon_odds` bound to the photo), a
    mark of ``table_hue_colour`` the views do not confirm is added where the checker's
    odds at it reach :data:`CHECKED_DEMON` and the views' mean
    :data:`CHECKED_DEMON_MEAN`, or the odds :data:`FAINT_TABLE_HUE_DEMON` where the mean
    reaches :data:`TABLE_HUE_DEMON_SCORE` (a mark under CONFIRM_FROM): a demon of the
    table's hue looks pale in every view, and the faint mark, the views and the checker
    are three cues that agree; and one of ``table_hue_colour`` the views do confirm is
    not added where the checker gives it under :data:`RULED_OUT_TABLE_HUE_DEMON` (the
    lit weave of felt by a crossing). A mark of another colour the views do not confirm is
    added from the checker's odds :data:`CHECKED_DEMON` and the mean
    :data:`CHECKED_DEMON_MEAN` too, unless it lies within :data:`CHECKER_CLEAR_OF_KNOT`
    pawn widths of the knot of its colour (the checker takes a knot for a demon). A
    mark with a ghost read within a pawn width of it is added only so, from the
    checker's odds :data:`BESIDE_GHOST_DEMON` (without ``demon_odds``, never): it may be
    the ghost's own mark, or a demon half hidden by the ghost. Within
    :data:`vision.demon_check.CLEAR_OF_DEMON` pawn widths of a demon read the checker's
    yes at the mark may be about that demon: there it is asked again at the place that
    far from that demon, through the mark (:func:`_away_from_demons`), and its odds there
    must reach :data:`AWAY_DEMON` as well. The checker is asked once about all such
    marks, and once more about those places (and once about each mark of the table's
    hue the views confirm). Given
    ``ghost_odds`` too (:func:`vision.ghost_check.ghost_odds` bound to the photo), first a
    ghost read that both checkers take for a demon is read as one
    (:func:`_demons_read_as_ghosts`; the demon checker is asked once more there).
    """
    if demon_odds is not None and ghost_odds is not None:
        pawns = _demons_read_as_ghosts(geometry, pawns, detections, demon_odds, ghost_odds)
    width = detections.pawn_width
    added: list[SeenPawn] = []
    # Marks for the checker: the mark, the views' mean, the least odds that add it.
    unconfirmed: list[tuple[Detection, float, float]] = []
    held: list[Point] = []  # the marks beside a ghost, held for the checker
    marks = _unread_marks(detections, pawns, DEMON, CORNERED_DEMON_FROM, SAME_PAWN * width)
    for mark in marks:
        # Two faint marks a width apart are still taken for one pawn: missed by the
        # rules and marked faintly both, the second is likelier its head than a pawn
        # (so is one beside a stronger mark held for the checker, being beside a ghost).
        if any(math.dist(mark.xy, xy) < width for xy in [p.foot for p in added] + held):
            continue
        where = _own_corner(geometry, mark.colour, mark.xy, width)
        if where is None:
            continue
        # Each demon's corner as the locator picks it, not every corner it fits about as
        # well: two demons touching in neighbouring corners each fit the other's too.
        # (Keeping the mark out where the two sets of corners meet, tried on the 13
        # generated photos this step changed, missed 3 of its demons again, 310153's
        # among them, and still took 330184's pawn head for a demon.)
        if _demon_beside(geometry, pawns.pawns, mark.xy, where, width):
            continue
        # A ghost beside the mark: the mark may be the ghost's own, tinted by the table
        # (then the checker sees no demon), or a demon half behind it (820168).
        beside_ghost = any(
            p.kind != DEMON and math.dist(mark.xy, p.foot) < width for p in pawns.pawns
        )
        if beside_ghost and demon_odds is None:
            continue
        again = look_again(mark)
        if beside_ghost:
            unconfirmed.append((mark, again.score, BESIDE_GHOST_DEMON))
            held.append(mark.xy)
        elif again.score >= _least_cornered_mean(mark, table_hue_colour):
            # Asked here, not after: a demon left out must not keep a neighbour's mark out.
            if demon_odds is not None and _ruled_out_of_the_table_hue(
                mark, table_hue_colour, demon_odds
            ):
                continue
            added.append(SeenPawn(DEMON, mark.colour, mark.xy, width, round(again.score, 2)))
        elif mark.colour == table_hue_colour:
            # Pale, not too pale (only a mark under CONFIRM_FROM comes here so).
            pale = again.score >= TABLE_HUE_DEMON_SCORE
            least_odds = FAINT_TABLE_HUE_DEMON if pale else CHECKED_DEMON
            unconfirmed.append((mark, again.score, least_odds))
        elif not _beside_own_knot(geometry, mark, width):
            unconfirmed.append((mark, again.score, CHECKED_DEMON))
    text = "a {colour} demon at {{at}} marked faintly, taken for standing in its corner"
    pawns = _with_added(pawns, added, text)
    if demon_odds is None or not unconfirmed:
        return pawns
    odds = demon_odds([mark.xy for mark, _, _ in unconfirmed])
    demon_feet = [p.foot for p in pawns.pawns if p.kind == DEMON]
    # The checker was taught no only where no demon stands within CLEAR_OF_DEMON pawn
    # widths of the place: nearer a demon read, its yes at the mark may be about that
    # demon, so it is asked again where it holds that demon no nearer (None: not asked).
    near = [
        any(math.dist(mark.xy, foot) < CLEAR_OF_DEMON * width for foot in demon_feet)
        for mark, _, _ in unconfirmed
    ]
    away = [
        _away_from_demons(mark.xy, demon_feet, width) if near_demon else None
        for (mark, _, _), near_demon in zip(unconfirmed, near, strict=True)
    ]
    asked_away = [place for place in away if place is not None]
    odds_away = iter(demon_odds(asked_away) if asked_away else [])
    checked: list[SeenPawn] = []
    for (mark, mean, least_odds), demon, near_demon, place in zip(
        unconfirmed, odds, near, away, strict=True
    ):
        demon_away = next(odds_away) if place is not None else None
        if demon < least_odds or mean < CHECKED_DEMON_MEAN:
            continue
        if near_demon and (demon_away is None or demon_away < AWAY_DEMON):
            continue
        # As above: a second faint mark a width from one taken is likelier its head.
        if all(math.dist(mark.xy, p.foot) >= width for p in added + checked):
            checked.append(SeenPawn(DEMON, mark.colour, mark.xy, width, round(mean, 2)))
    text = "a {colour} demon at {{at}} marked faintly, and seen by the demon checker in its corner"
    return _with_added(pawns, checked, text)


def _ruled_out_of_the_table_hue(
    mark: Detection,
    table_hue_colour: str | None,
    demon_odds: Callable[[list[Point]], Sequence[float]],
) -> bool:
    """Whether ``mark``, of ``table_hue_colour``, is given odds under
    :data:`RULED_OUT_TABLE_HUE_DEMON` by the demon checker (``demon_odds``; a NaN
    answer rules out nothing). A mark of another colour is not asked about."""
    if mark.colour != table_hue_colour:
        return False
    [odds] = demon_odds([mark.xy])
    return bool(odds < RULED_OUT_TABLE_HUE_DEMON)


def _beside_own_knot(geometry: BoardGeometry, mark: Detection, width: float) -> bool:
    """Whether ``mark`` lies within :data:`CHECKER_CLEAR_OF_KNOT` pawn widths of the
    knot of its colour, which the demon checker may take for a demon."""
    line = geometry.board.line(mark.colour)
    knot = line.knot if line is not None else None
    return knot is not None and math.dist(mark.xy, knot) < CHECKER_CLEAR_OF_KNOT * width


def _away_from_demons(xy: Point, demon_feet: list[Point], width: float) -> Point | None:
    """The place :data:`CLEAR_OF_DEMON` pawn widths from the demon read nearest ``xy``
    (of ``demon_feet``), on the line from it through ``xy``: there the demon checker's
    crop holds that demon only where it was taught no. None where that place lies
    nearer another demon read. (A mark asked about lies at least
    :data:`vision.detect.SAME_PAWN` widths from every pawn read, so the place lies
    within :data:`vision.demon_check.DEMON_REACH` of it: a demon at the mark is one the
    checker says yes to there.)"""
    nearest = min(demon_feet, key=lambda foot: math.dist(foot, xy))
    apart = math.dist(nearest, xy)
    if apart == 0:
        return None
    share = CLEAR_OF_DEMON * width / apart
    place = (nearest[0] + (xy[0] - nearest[0]) * share, nearest[1] + (xy[1] - nearest[1]) * share)
    others = [foot for foot in demon_feet if foot != nearest]
    if any(math.dist(place, foot) < CLEAR_OF_DEMON * width for foot in others):
        return None
    return place


def _demons_read_as_ghosts(
    geometry: BoardGeometry,
    pawns: Pawns,
    detections: Detections,
    demon_odds: Callable[[list[Point]], Sequence[float]],
    ghost_odds: Callable[[list[Point]], Sequence[float]],
) -> Pawns:
    """``pawns`` with each ghost that the checkers take for a demon read as one.

    A demon of the table's hue, dark against it in low light, shows little colour of its
    own, and the detector may mark it surer as a ghost than as a demon (830173: three
    blue demons on the blue mat marked 0.45-0.51 as ghosts, 0.34-0.48 as blue demons).
    A ghost read with a demon's mark from :data:`CORNERED_DEMON_FROM` within
    :data:`SAME_PAWN` pawn widths (the strongest) is read as that demon at the mark
    where, at the ghost, the ghost checker's odds stay under :data:`NOT_A_GHOST` and the
    demon checker's reach :data:`DEMON_NOT_GHOST`, with a warning in place of any the
    ghost had; its confidence is the mark's score. Not where a demon read, or one turned
    before it (nearest first), keeps the mark out (:func:`_kept_out`: as
    :func:`add_cornered_demons` keeps a mark out, and anywhere within a pawn width where
    the locator puts the mark in no corner of its colour; the two checkers were measured
    on ghosts read everywhere: seventieth session, 24 of 13051 true ghosts under
    NOT_A_GHOST, none of them with demon odds over 0.012); one ghost a mark, the
    nearest. The checkers are asked once each, about all such ghosts. The reverse of
    :func:`_ghosts_read_as_demons`.
    """
    width = detections.pawn_width
    reach = SAME_PAWN * width
    marks = [m for m in detections.pawns(min_score=CORNERED_DEMON_FROM) if m.kind == DEMON]
    demons = [p for p in pawns.pawns if p.kind == DEMON]
    # (distance, index of the ghost in pawns, the demon's mark at it), nearest first
    nearest: list[tuple[float, int, Detection]] = []
    for i, pawn in enumerate(pawns.pawns):
        near = [m for m in marks if math.dist(m.xy, pawn.foot) < reach]
        if pawn.kind != GHOST or not near:
            continue
        mark = max(near, key=lambda m: m.score)
        if not _kept_out(geometry, demons, mark, width):
            nearest.append((math.dist(mark.xy, pawn.foot), i, mark))
    doubted: list[tuple[int, Detection]] = []
    for _, i, mark in sorted(nearest, key=lambda item: item[0]):
        if mark not in [taken for _, taken in doubted]:
            doubted.append((i, mark))
    if not doubted:
        return pawns
    places = [pawns.pawns[i].foot for i, _ in doubted]
    read = list(pawns.pawns)
    warnings = list(pawns.warnings)
    turned: list[SeenPawn] = []
    for (index, mark), demon, ghost in zip(
        doubted, demon_odds(places), ghost_odds(places), strict=True
    ):
        if not (demon >= DEMON_NOT_GHOST and ghost < NOT_A_GHOST):  # (NaN: no change)
            continue
        # A demon turned keeps the next mark out as one read does (two ghosts at two
        # marks of one pawn, its foot and its head, are not two demons); the demons
        # read kept it out already.
        if _kept_out(geometry, turned, mark, width):
            continue
        # As the demons add_cornered_demons adds: the width looked for, not the ghost's
        # blob's (which may hold its shadow).
        read[index] = SeenPawn(DEMON, mark.colour, mark.xy, width, round(mark.score, 2))
        turned.append(read[index])
        was = pawns.pawns[index].foot
        warnings = [w for w in warnings if w.at != was]
        warnings.append(Remark(
            f"a {mark.colour} demon at {{at}}, read first as a ghost, is a demon to the "
            "demon checker", mark.xy))
    return Pawns(read, pawn_width=pawns.pawn_width, warnings=warnings)


def _kept_out(
    geometry: BoardGeometry, demons: list[SeenPawn], mark: Detection, width: float
) -> bool:
    """Whether a ghost read at a demon's ``mark`` stays a ghost whatever the checkers say,
    for the ``demons`` read beside it (pawns ``width`` wide): one within
    :data:`SAME_PAWN` widths (the mark is that demon's own); in a corner of the mark's
    colour, one within a width in the same corner or in none (:func:`_demon_beside`);
    in no corner of its colour, one within a width wherever it stands (a demon standing
    so is a violation to report; a demon that near may be the pawn marked, at its head,
    and stands in the checkers' crops)."""
    if any(math.dist(mark.xy, p.foot) < SAME_PAWN * width for p in demons):
        return True
    where = _own_corner(geometry, mark.colour, mark.xy, width)
    if where is None:
        # 1390199: a green demon at a field's centre on felt, read as a ghost (ghost
        # checker 0.00005, demon checker 0.998).
        return any(math.dist(mark.xy, p.foot) < width for p in demons)
    return _demon_beside(geometry, demons, mark.xy, where, width)


def _least_cornered_mean(mark: Detection, table_hue_colour: str | None) -> float:
    """The mean of the eight views from which a demon's ``mark`` in a corner of its
    colour is taken (:data:`CORNERED_DEMON_SCORE`, or :data:`TABLE_HUE_DEMON_SCORE`)."""
    if _of_the_table_hue(mark, table_hue_colour):
        return TABLE_HUE_DEMON_SCORE
    return CORNERED_DEMON_SCORE


def _corner_of(
    geometry: BoardGeometry, colour: str, xy: tuple[float, float], width: float
) -> tuple[int, int] | None:
    """(crossing, sector) of the corner the locator puts a demon of ``colour`` at ``xy``
    in (where several fit about as well, the one it picks), or None where it is in
    none: on a string, or away from every corner."""
    [where] = geometry.locate([Foot(DEMON, colour, xy)], pawn_radius=width / 2)
    if where.crossing is None or where.sector is None:
        return None
    if where.ambiguity not in (None, BETWEEN_CORNERS_AMBIGUITY):
        return None
    return where.crossing, where.sector


def _own_corner(
    geometry: BoardGeometry, colour: str, xy: tuple[float, float], width: float
) -> tuple[int, int] | None:
    """The corner :func:`_corner_of` puts a demon of ``colour`` at ``xy`` in, where its
    crossing is of that colour (a demon stands next to both its strings), else None."""
    where = _corner_of(geometry, colour, xy, width)
    if where is None or colour not in geometry.board.crossings[where[0]].lines:
        return None
    return where


def _demon_beside(
    geometry: BoardGeometry,
    pawns: list[SeenPawn],
    xy: tuple[float, float],
    where: tuple[int, int],
    width: float,
) -> bool:
    """Whether a demon of ``pawns`` stands within a pawn ``width`` of ``xy`` that the
    locator puts in the corner ``where`` or in none: a mark there is likelier that
    demon marked twice (its foot and its head) than a second demon."""
    return any(
        p.kind == DEMON
        and math.dist(xy, p.foot) < width
        and _corner_of(geometry, p.colour, p.foot, width) in (None, where)
        for p in pawns
    )


def _unread_marks(
    detections: Detections,
    pawns: Pawns,
    kind: str,
    min_score: float,
    clear_by: float,
    own_kind_only: bool = False,
) -> list[Detection]:
    """The detector's marks of ``kind`` from ``min_score`` (one per pawn, strongest
    first) that no pawn of ``pawns`` stands within ``clear_by`` of. One per pawn among
    the marks of every kind, or with ``own_kind_only`` among those of ``kind``."""
    width = detections.pawn_width
    found = detections.pawns(min_score=min_score)
    if own_kind_only:
        found = [mark for mark in found if mark.kind == kind]
    return [
        mark
        for mark in one_mark_per_pawn(found, width)
        if mark.kind == kind and not any(math.dist(mark.xy, p.foot) < clear_by for p in pawns.pawns)
    ]


def _with_added(pawns: Pawns, added: list[SeenPawn], text: str, about: str = "") -> Pawns:
    """``pawns`` and ``added``, with a warning (``text``, formatted with the pawn's
    colour; ``{at}`` is its foot; ``about`` what it doubts, :class:`Remark`) for each
    added pawn. A pawn perhaps missed (:data:`MAYBE_MISSED`) where one is added now is no
    longer in doubt."""
    if not added:
        return pawns
    reach = SAME_PAWN * pawns.pawn_width
    answered = [
        w for w in pawns.warnings
        if w.about == MAYBE_MISSED and w.at is not None
        and any(math.dist(w.at, p.foot) < reach for p in added)
    ]
    warnings = [w for w in pawns.warnings if w not in answered]
    warnings += [Remark(text.format(colour=p.colour), p.foot, about) for p in added]
    return Pawns(pawns.pawns + added, pawn_width=pawns.pawn_width, warnings=warnings)


def _beside_own_colour(mark: Detection | SeenPawn, pawns: list[SeenPawn], reach: float) -> bool:
    """Whether another pawn of the colour of ``mark`` (a mark or a pawn) stands
    within ``reach`` of it (a pawn width, or less): the detector may mark one pawn
    twice, faintly beside surely (a pawn of another colour may touch it)."""
    at = mark.xy if isinstance(mark, Detection) else mark.foot
    return any(
        p is not mark and p.colour == mark.colour and math.dist(at, p.foot) < reach for p in pawns
    )


def _marked_as(
    pawn: SeenPawn, xy: tuple[float, float], detections: Detections, width: float
) -> bool:
    """Whether the detector marks a pawn of ``pawn``'s kind and colour (however
    faintly) within :data:`SAME_PAWN` pawn widths (``width``) of ``xy``."""
    return any(
        m.kind == pawn.kind and m.colour == pawn.colour and math.dist(m.xy, xy) < SAME_PAWN * width
        for m in detections.pawns(min_score=0.0)
    )


def _still_doubtful(
    remark: Remark, pawns: list[SeenPawn], width: float, detections: Detections
) -> bool:
    """Whether a remark of the colour rules still holds once the detector has had its
    say: "touching pawns" only where pawns were kept and the detector is unsure of one
    of them, "too large for a pawn" only where none was found (the detector then read
    the object as pawns): within the thing's extent, or a pawn width, of where the
    remark points.

    A pawn the detector marks from :data:`vision.doubts.LOW_CONFIDENCE` at its foot is
    one it told apart from the pawn it touches; where it so marks every pawn kept at a
    blob the rules split, the remark only crowds the list a player checks first
    (ninety-fourth session; see docs/reader-history.md).
    """
    if remark.at is None or remark.about not in (TOUCHING_PAWNS, NOT_A_PAWN):
        return True
    at, reach = remark.at, max(width, remark.extent)
    there = [p for p in pawns if math.dist(p.foot, at) < reach]
    if remark.about == NOT_A_PAWN:
        return not there
    # A kept pawn's foot is its mark's place.
    marks = detections.pawns(min_score=0.0)
    return any((_mark_at(p.foot, marks, 0.5) or 0.0) < LOW_CONFIDENCE for p in there)


def _seen_by_the_rules(looked: Detection, ghosts: list[SeenPawn], width: float) -> bool:
    """Whether ``looked``, a ghost mark scored again in eight views, reaches
    :data:`RULES_GHOST_SCORE` with a ghost of the colour rules that no mark kept within
    :data:`RULES_GHOST_REACH` pawn ``width`` of it."""
    return looked.kind == GHOST and looked.score >= RULES_GHOST_SCORE and any(
        math.dist(looked.xy, ghost.foot) <= RULES_GHOST_REACH * width for ghost in ghosts
    )


def _pale_demon(mark: Detection, looked: Detection, table_hue_colour: str | None) -> bool:
    """Whether ``mark``, scored again as ``looked``, is a demon of the table's hue marked
    as much as such demons are (:data:`TABLE_HUE_DEMON_SCORE`, from CONFIRM_FROM in the
    one view)."""
    return (
        mark.kind == DEMON
        and _of_the_table_hue(mark, table_hue_colour)
        and looked.score >= TABLE_HUE_DEMON_SCORE
    )


def _of_the_table_hue(mark: Detection, table_hue_colour: str | None) -> bool:
    """Whether ``mark`` is of the table's hue and marked from CONFIRM_FROM in the one
    view: then a mean of TABLE_HUE_DEMON_SCORE in the eight views is a demon of that hue
    (against its table it looks pale in every view)."""
    return mark.colour == table_hue_colour and mark.score >= CONFIRM_FROM


def _confirmed(looked: Detection) -> bool:
    """Whether a mark scored again in eight views is a pawn to add."""
    least = CONFIRMED_GHOST_SCORE if looked.kind == GHOST else CONFIRMED_ADD_SCORE
    return looked.score >= least


def own_width(pawn: SeenPawn, width: float, typical: float) -> float:
    """How wide ``pawn`` is, in terms of the detector's pawn ``width``: as much wider as
    its blob (its width across, :attr:`SeenPawn.width`) is than the colour rules' width
    of one pawn in the photo (``typical``: the diameter of the median blob's area), up
    to a blob of several pawns. (The detector's width may be smaller than the rules'
    where their blobs included shadows: the blobs are compared with the rules' own.)"""
    if typical <= 0:
        return width
    return width * min(max(pawn.width / typical, 1.0), SEVERAL_PAWNS_WIDTH)


def _strongest_within(
    point: tuple[float, float], marks: list[Detection], taken: set[int], reach: float
) -> int | None:
    """The strongest of ``marks`` not ``taken`` within ``reach`` of ``point``."""
    within = [i for i, m in enumerate(marks) if i not in taken and math.dist(point, m.xy) < reach]
    return max(within, key=lambda i: marks[i].score, default=None)


def combine_knots(
    loops: Loops,
    detections: Detections,
    string_width: float,
    pawns: Pawns | None = None,
    look_again: Callable[[Detection], Detection] | None = None,
    knot_odds: Callable[[list[Point]], Sequence[float]] | None = None,
    turned_knot_odds: Callable[[list[Point]], Sequence[float]] | None = None,
) -> Loops:
    """The loops with the knots the detector marked on them.

    A knot mark within :data:`KNOT_REACH_WIDTHS` string widths of a loop (or
    :data:`KNOT_REACH_PAWNS` pawn widths, where that is more; also the reach round a
    crossing within which a faint mark is taken for its lump; a mark from
    :data:`LOST_KNOT_SCORE` within that of no loop, :data:`SURE_KNOT_REACH` times it,
    and is then taken at the loop's point beside it) counts for it when the cord map
    there shows the loop's own cord (see :data:`KNOT_COLOUR_SURE`;
    from :data:`OWN_CORD_KNOT_SCORE`; from :data:`KNOT_SCORE` where two loops whose
    cords show there cross within reach), or, at least :data:`KNOT_SCORE` strong and
    on no near loop's own cord, when the loop is the nearest. A loop's knot is its
    strongest mark near the knot the tracer found (the two agree; the mark is the
    more precise), unless a mark elsewhere on it is over :data:`STRONGER_BY` stronger
    (:data:`STRONGER_BY_BESIDE_PAWN` where the tracer's knot lies within
    :data:`BESIDE_PAWN` pawn widths of one of ``pawns`` of the loop's colour); with no
    mark near the tracer's knot, its strongest mark; with no mark on it, the tracer's
    knot stays. Given ``look_again`` (:func:`vision.detect.look_again` bound to the
    photo), a knot chosen on a faint mark is put in question against the loop's other
    likeliest marks and the tracer's knot (:func:`_knot_looked_at_again`). Then a knot
    at the base of a pawn of the loop's colour gives way to a mark nearly as strong away
    from its pawns (:func:`_in_the_open`), unless the look again chose it over the
    first choice or marks it more than that mark. The knot is put on the loop, at its
    point nearest the mark, and the strongest of the loop's own marks within reach of
    it (not a faint lump at a crossing, nor another loop's mark) is kept as its
    ``knot_mark``. Then a knot so chosen that lies near a crossing of its loop on a
    faint mark or none gives way to a faint mark away from the loop's crossings, which
    becomes its ``knot_mark`` (:data:`CROSSING_KNOT_WIDTHS`). Last, given ``knot_odds``
    (:func:`vision.knot_check.knot_odds` bound to the photo), a knot the checker doubts
    gives way to a place on its loop that the checker is sure of and the eight views
    do not mark clearly less (:func:`_checked_knots`; given ``turned_knot_odds``,
    :func:`vision.knot_check.turned_knot_odds` bound to the photo, only where the checker
    asked about each crop turned the eight ways agrees); given both ``turned_knot_odds``
    and ``look_again``, a knot the checker rules out asked the eight ways moves to the
    place along its loop it finds likeliest where the views mark that more
    (:func:`_knots_ruled_out`); and a loop still without a knot takes the place along it
    the checker finds likeliest (:func:`_knots_scanned_for`).
    """
    rings = {colour: LinearRing(np.asarray(loop.points)) for colour, loop in loops.loops.items()}
    marked: dict[str, list[Detection]] = {colour: [] for colour in rings}
    reach = knot_reach(string_width, detections.pawn_width)
    far_reach = SURE_KNOT_REACH * reach
    for mark in detections.knots(min_score=min(KNOT_SCORE, OWN_CORD_KNOT_SCORE)):
        distances = {c: ring.distance(ShapelyPoint(mark.xy)) for c, ring in rings.items()}
        near = [c for c, distance in distances.items() if distance <= reach]
        if not near:
            if mark.score >= LOST_KNOT_SCORE:
                # A sure mark a little beyond reach of every loop: only on a loop's own
                # cord, and taken at that loop's point beside it, where it puts the
                # knot (within reach, as any mark a loop takes).
                own = _cords_at(detections, mark.xy, KNOT_COLOUR_WIDTHS * string_width)
                beside = [c for c, distance in distances.items()
                          if distance <= far_reach and _shows_cord(own, c)]
                if beside:
                    owner = max(beside, key=lambda c: (own[c], -distances[c]))
                    marked[owner].append(replace(mark, xy=_on_ring(rings[owner], mark.xy)))
            continue
        own = _cords_at(detections, mark.xy, KNOT_COLOUR_WIDTHS * string_width)
        owners = [c for c in near if _shows_cord(own, c)]
        if mark.score < KNOT_SCORE and _at_a_crossing(mark.xy, [rings[c] for c in owners], reach):
            # A crossing is a lump to the detector too, and no knot lies on one
            # (engine.topology refuses it); both cords show there, so the cord map
            # cannot say whose a faint mark is.
            continue
        if owners:
            # One knot is one loop's: near a crossing both cords show, the surer one.
            owner = max(owners, key=lambda c: (own[c], -distances[c]))
            if mark.score >= OWN_CORD_KNOT_SCORE:
                marked[owner].append(mark)
        elif mark.score >= KNOT_SCORE:
            marked[min(near, key=distances.__getitem__)].append(mark)
    loops_with_knots = {}
    warnings = list(loops.warnings)
    for colour, loop in loops.loops.items():
        stronger_by = STRONGER_BY
        feet = [p.foot for p in pawns.pawns if p.colour == colour] if pawns is not None else []
        pawn_width = pawns.pawn_width if pawns is not None else 0.0
        if loop.knot is not None and _widths_from_feet(loop.knot, feet, pawn_width) < BESIDE_PAWN:
            stronger_by = STRONGER_BY_BESIDE_PAWN
        first = _knot_mark(loop.knot, marked[colour], string_width, stronger_by)
        chosen = first
        if look_again is not None:
            chosen = _knot_looked_at_again(loop, marked[colour], first, string_width, look_again)
        if chosen is first:
            # A mark the eight views chose over the first stands, also at a pawn's
            # base: the first choice, which it was chosen over, may stand in the open
            # (230099: a knot beside a yellow pawn, marked 0.28, against a lump 0.31).
            chosen = _in_the_open(chosen, marked[colour], feet, pawn_width, look_again)
        if _fainter_than_the_tracers(loop, chosen, string_width, look_again):
            chosen = None
        if chosen is None:
            loops_with_knots[colour] = replace(
                loop, knot_mark=_mark_at(loop.knot, marked[colour], reach)
            )
            continue
        on_loop = _on_ring(rings[colour], chosen.xy)
        loops_with_knots[colour] = replace(
            loop,
            knot=on_loop,
            knot_confidence=max(loop.knot_confidence, chosen.score),
            knot_mark=_mark_at(on_loop, marked[colour], reach),
        )
    for colour, loop in loops_with_knots.items():
        away = _knot_away_from_crossings(loop, colour, rings, detections, reach)
        if away is not None:
            loops_with_knots[colour] = replace(
                loop,
                knot=_on_ring(rings[colour], away.xy),
                knot_confidence=away.score,
                knot_mark=away.score,
            )
    if knot_odds is not None:
        detected_width = detections.pawn_width
        at_pawn_base = frozenset(
            colour for colour, loop in loops_with_knots.items()
            if _at_pawn_base(loop.knot, colour, pawns)
        )
        # Each loop is scanned all along at most once: a knot both doubted and ruled out
        # asks about the same places twice (only the knot moves; the loop stays).
        likeliest_on = functools.cache(
            lambda colour: _likeliest_on_loop(loops.loops[colour], rings[colour],
                                              detected_width, knot_odds)
        )
        loops_with_knots = _checked_knots(
            loops_with_knots, loops.loops, marked, rings, reach, knot_odds, likeliest_on,
            look_again, detected_width, turned_knot_odds, at_pawn_base, pawns,
        )
        if turned_knot_odds is not None and look_again is not None:
            loops_with_knots = _knots_ruled_out(
                loops_with_knots, loops.loops, marked, rings, reach, detected_width,
                likeliest_on, turned_knot_odds, look_again, pawns,
            )
        loops_with_knots = _knots_scanned_for(loops_with_knots, detected_width, likeliest_on)
    found = {no_knot_warning(colour) for colour, loop in loops_with_knots.items()
             if loop.knot is not None}
    warnings = [w for w in warnings if w not in found]
    return Loops(loops=loops_with_knots, warnings=warnings)


def _checked_knots(
    chosen: dict[str, Loop],
    traced: dict[str, Loop],
    marked: dict[str, list[Detection]],
    rings: dict[str, LinearRing],
    reach: float,
    knot_odds: Callable[[list[Point]], Sequence[float]],
    likeliest_on: Callable[[str], tuple[float, Point] | None],
    look_again: Callable[[Detection], Detection] | None = None,
    pawn_width: float = 0.0,
    turned_knot_odds: Callable[[list[Point]], Sequence[float]] | None = None,
    at_pawn_base: frozenset[str] = frozenset(),
    pawns: Pawns | None = None,
) -> dict[str, Loop]:
    """The loops ``chosen``, each knot the checker doubts (under :data:`KNOT_DOUBT`, in
    one crop or, for a knot at its own pawn's base and given ``turned_knot_odds``, asked
    eight ways) moved to the likeliest of the loop's :data:`CHECKED_CONTENDERS`
    strongest ``marked`` places and the tracer's knot (of ``traced``) beyond ``reach``
    of it, where the checker is sure of that one (:data:`CHECKED_KNOT`) and, given
    ``look_again``, the eight views mark it at most :data:`CHECKED_SLACK` less than the
    knot (each place looked at as the strongest mark within ``reach`` of it); no less,
    where the knot's mark reaches :data:`SURELY_MARKED_KNOT` and it is not at its own
    pawn's base. ``at_pawn_base`` are the colours whose knot stands at the base of a
    pawn of that colour (:func:`_at_pawn_base`); a knot not among them is not moved to
    the base of one of ``pawns`` of its colour (the likeliest place there ends the check
    of that loop: no other place is tried). Its ``knot_mark`` is then
    the loop's strongest mark within ``reach``. A place at least :data:`CHECKED_APART`
    pawn widths (``pawn_width``) from the knot is asked about along its loop within
    :data:`CHECKED_ALONG` widths either side (:func:`_likeliest_along`), stands where
    the checker is surest, and must be likelier so than the knot asked alike; a
    nearer place is asked where it stands. Where no such place will do, the loop is
    asked all along (``likeliest_on``, :func:`_likeliest_on_loop` for a colour), and its
    likeliest place, at least CHECKED_APART from the knot, is taken on the same terms,
    the views with no slack.
    Given ``turned_knot_odds`` (the checker asked about each crop turned the eight ways,
    averaged), a place is taken only where those odds are higher than at the knot's
    likeliest place along its loop: one crop's odds swing with a pixel or two, the
    eight turns' far less; and the views give slack only where those odds at the place
    reach :data:`CHECKED_TURNED`.
    The checker is asked about every knot where it stands (eight ways too about each
    knot at its own pawn's base), then about the places of
    the loops whose knot it doubts, then along those loops none of them will do, and,
    for each loop whose knot would move, eight ways about the two places. A place near
    the knot, which stands on its own odds, must beat the knot's likeliest place along
    its loop asked eight ways too (that place may lie beside it: a tie keeps the knot)."""
    # A knot the tracer found by its shape is put in question too (the eight views do
    # not put it, _knot_looked_at_again): the knots the checker set right on the
    # replayed hard photos were such lumps; sparing them kept 6 of its 8 wins wrong.
    knots = {colour: loop.knot for colour, loop in chosen.items() if loop.knot is not None}
    if not knots:
        return chosen
    here = dict(zip(knots, knot_odds(list(knots.values())), strict=True))
    based = [colour for colour in knots if colour in at_pawn_base]
    if turned_knot_odds is not None and based:
        # A knot at its own pawn's base is asked eight ways too, and doubted where
        # either way doubts it: one crop of a pawn's base on its cord may look like a
        # knot (1700199: 0.76 one crop, 0.29 eight ways; the true knot in the open 1.0
        # both ways).
        turned = turned_knot_odds([knots[c] for c in based])
        for colour, odds in zip(based, turned, strict=True):
            if math.isfinite(odds):
                here[colour] = min(here[colour], odds)
    others: dict[str, list[Point]] = {}
    for colour, knot in knots.items():
        if not here[colour] < KNOT_DOUBT:  # (a NaN answer doubts nothing)
            continue
        strongest = sorted(marked[colour], key=lambda m: -m.score)[:CHECKED_CONTENDERS]
        places = [m.xy for m in strongest]
        tracers = traced[colour].knot
        if tracers is not None:
            places.append(tracers)
        # A place within reach of the knot is the knot, seen again.
        others[colour] = [p for p in places if math.dist(p, knot) > reach]
    # A place far from the knot is asked along its loop, and so is the knot, once, to
    # be beaten (dev_0013: a right knot given 0.04 where it stood and 0.84 a little
    # along the loop, the tracer's lump 39 px off 0.82 a little along towards it); a
    # place near it only where it stands, as the knot was (see CHECKED_APART).
    apart = CHECKED_APART * pawn_width
    asked: list[tuple[LinearRing | None, Point]] = []
    split: dict[str, tuple[list[Point], list[Point]]] = {}
    for colour, places in others.items():
        # Apart along the loop, as the places asked along it are.
        gaps = [_along_ring(rings[colour], p, knots[colour]) for p in places]
        near = [p for p, gap in zip(places, gaps, strict=True) if gap < apart]
        far = [p for p, gap in zip(places, gaps, strict=True) if gap >= apart]
        split[colour] = (near, far)
        asked += [(None, p) for p in near]
        asked += [(rings[colour], p) for p in [knots[colour], *far]]
    if not asked:
        return chosen
    answers = iter(_likeliest_along(asked, pawn_width, knot_odds))
    checked = dict(chosen)
    for colour, (near, far) in split.items():
        # A near place stands on its own odds, as the knot was doubted on its own; a far
        # one must beat the knot asked alike (no finite answer there bars nothing).
        found = [next(answers) for _ in near]
        at_knot, at_knot_place = next(answers)
        bar = at_knot if math.isfinite(at_knot) else -math.inf
        found += [answer for answer in (next(answers) for _ in far) if answer[0] > bar]
        finite = [answer for answer in found if math.isfinite(answer[0])]
        best, likeliest = max(finite, key=lambda answer: answer[0], default=(0.0, (0.0, 0.0)))
        scanned = False
        if best < CHECKED_KNOT:
            # No place marked or traced will do: the checker is asked all along the loop
            # (1230150: no mark near the true knot, given 0.94 along the loop). Its
            # false peaks (0.08 % of places without a knot over 0.8: one in about two
            # loops) are left to the views, which must mark the place found no less
            # than the knot: nothing marks it (with CHECKED_SLACK, two right knots of
            # 600 hard photos moved where the views marked 0.11 and 0.04 against 0.25
            # and 0.15).
            found_on_loop = likeliest_on(colour)
            if found_on_loop is None:
                continue
            best, likeliest = found_on_loop
            if best < CHECKED_KNOT or not best > bar:
                continue
            if _along_ring(rings[colour], likeliest, knots[colour]) < apart:
                continue
            scanned = True
        if _onto_pawn_base(knots[colour], likeliest, colour, pawns):
            continue
        # A pawn's base on its own cord is a lump to the detector as a knot is, and the
        # views mark it as surely: there its mark does not make the knot sure.
        sure = (
            (chosen[colour].knot_mark or 0.0) >= SURELY_MARKED_KNOT
            and colour not in at_pawn_base
        )
        slack = 0.0 if sure or scanned else CHECKED_SLACK
        if turned_knot_odds is not None:
            # A second opinion, steadier than one crop's (1390146: a right knot given
            # 0.79 along its loop against a pawn's base on its cord, 0.87; turned the
            # eight ways 0.78 and 0.35). The knot is asked where it was likeliest.
            mine, theirs = turned_knot_odds([at_knot_place, likeliest])
            if not theirs > (mine if math.isfinite(mine) else -math.inf):
                continue
            if not theirs >= CHECKED_TURNED:
                slack = 0.0
        if look_again is not None:
            # The views, not the checker, say whether the knot is clearly likelier.
            there = _seen_in_the_views(likeliest, marked[colour], reach, look_again)
            here_seen = _seen_in_the_views(knots[colour], marked[colour], reach, look_again)
            if there < here_seen - slack:
                continue
        checked[colour] = _knot_moved(chosen[colour], rings[colour], likeliest, best,
                                      marked[colour], reach)
    return checked


def _knot_moved(
    loop: Loop, ring: LinearRing, xy: Point, odds: float, marks: list[Detection], reach: float
) -> Loop:
    """``loop`` with its knot moved to its ``ring``'s point nearest ``xy``, where the
    knot checker gave ``odds`` (its ``knot_confidence``); its ``knot_mark`` the
    strongest of ``marks`` within ``reach`` of it."""
    knot = _on_ring(ring, xy)
    return replace(loop, knot=knot, knot_confidence=odds, knot_mark=_mark_at(knot, marks, reach))


def _knots_ruled_out(
    loops: dict[str, Loop],
    traced: dict[str, Loop],
    marked: dict[str, list[Detection]],
    rings: dict[str, LinearRing],
    reach: float,
    pawn_width: float,
    likeliest_on: Callable[[str], tuple[float, Point] | None],
    turned_knot_odds: Callable[[list[Point]], Sequence[float]],
    look_again: Callable[[Detection], Detection],
    pawns: Pawns | None = None,
) -> dict[str, Loop]:
    """``loops``, each knot the checker rules out (under :data:`RULED_OUT_KNOT` asked
    about its crop turned the eight ways, ``turned_knot_odds``) moved to the place along
    its loop that the checker finds likeliest (``likeliest_on``, :func:`_likeliest_on_loop`
    for a colour), where that lies at least :data:`CHECKED_APART` ``pawn_width`` from it
    along the loop and the eight views (``look_again``, at the strongest of the loop's
    ``marked`` places within ``reach``) mark it more than the knot and at least
    :data:`VIEWED_KNOT`, and the checker asked
    eight ways gives it more than the knot. Its ``knot_confidence`` is then the
    checker's odds there, its ``knot_mark`` the loop's strongest mark within ``reach``.
    A knot within ``reach`` of the knot the tracer (``traced``) found with
    :data:`SHAPED_KNOT` confidence stays, and so does one not at the base of a pawn of
    its colour where the place is at one (``pawns``, :func:`_at_pawn_base`): the checker asked
    eight ways may prefer a pawn's base on its own cord to a small knot in the open
    (1960182: 0.49 against 0.03)."""
    knots = {
        colour: loop.knot
        for colour, loop in loops.items()
        if loop.knot is not None and not _at_shaped_knot(loop.knot, traced.get(colour), reach)
    }
    if not knots or not pawn_width > 0:
        return loops
    turned = turned_knot_odds(list(knots.values()))
    moved = dict(loops)
    for (colour, knot), odds in zip(knots.items(), turned, strict=True):
        if not odds < RULED_OUT_KNOT:  # (a NaN answer rules out nothing)
            continue
        found = likeliest_on(colour)
        if found is None:
            continue
        likeliest_odds, likeliest = found
        if _along_ring(rings[colour], likeliest, knot) < CHECKED_APART * pawn_width:
            continue
        if _onto_pawn_base(knot, likeliest, colour, pawns):
            continue
        there = _seen_in_the_views(likeliest, marked[colour], reach, look_again)
        if not there >= VIEWED_KNOT:
            continue
        if not there > _seen_in_the_views(knot, marked[colour], reach, look_again):
            continue
        # One crop's odds peak narrowly and falsely about once in two loops (see
        # _checked_knots): the eight ways must prefer the place too.
        [turned_there] = turned_knot_odds([likeliest])
        if not turned_there > odds:
            continue
        moved[colour] = _knot_moved(loops[colour], rings[colour], likeliest, likeliest_odds,
                                    marked[colour], reach)
    return moved


def _at_shaped_knot(knot: Point, traced: Loop | None, reach: float) -> bool:
    """Whether ``knot`` lies within ``reach`` of the knot the tracer found surely by its
    shape (``traced``'s, of :data:`SHAPED_KNOT` confidence)."""
    return (
        traced is not None
        and traced.knot is not None
        and traced.knot_confidence >= SHAPED_KNOT
        and math.dist(knot, traced.knot) <= reach
    )


def _along_ring(ring: LinearRing, a: Point, b: Point) -> float:
    """How far apart the points of ``ring`` nearest ``a`` and ``b`` lie along it."""
    gap = abs(ring.project(ShapelyPoint(a)) - ring.project(ShapelyPoint(b)))
    return min(gap, ring.length - gap)


def _likeliest_along(
    places: list[tuple[LinearRing | None, Point]],
    pawn_width: float,
    knot_odds: Callable[[list[Point]], Sequence[float]],
) -> list[tuple[float, Point]]:
    """For each place with its loop's ring: the knot checker's highest odds where the
    place lies and along the ring within :data:`CHECKED_ALONG` pawn widths either side
    of the place's point on it (every :data:`KNOT_SCAN_STEP`), and where it gave them
    (NaN where no answer there is finite). Without a ring, or a pawn width, the place
    alone. One question for all."""
    steps = round(CHECKED_ALONG / KNOT_SCAN_STEP) if pawn_width > 0 else 0
    offsets = [i * KNOT_SCAN_STEP * pawn_width for i in range(-steps, steps + 1)]
    asked: list[Point] = []
    groups: list[range] = []
    for ring, xy in places:
        # The place itself first: a knot's lump may lie off the traced loop, and a mark
        # on it be given more than the loop beside it (1210309: 0.95 at a mark, 0.57 on
        # the loop 5 px off).
        start = len(asked)
        asked.append(xy)
        if ring is not None and steps and ring.length > 0:
            at = ring.project(ShapelyPoint(xy))
            for offset in offsets:
                # A ring is closed: a place near its start reaches past its end.
                on = ring.interpolate((at + offset) % ring.length)
                asked.append((on.x, on.y))
        groups.append(range(start, len(asked)))
    answers = [float(a) for a in knot_odds(asked)] if asked else []
    found = []
    for group in groups:
        finite = [j for j in group if math.isfinite(answers[j])]
        if not finite:
            found.append((math.nan, asked[group[0]]))
            continue
        # Of equal answers, the place itself, then the one nearest its point on the ring.
        middle = group[0] + 1 + steps
        best = max(finite, key=lambda j: (answers[j], j == group[0], -abs(j - middle)))
        found.append((answers[best], asked[best]))
    return found


def _knots_scanned_for(
    loops: dict[str, Loop],
    pawn_width: float,
    likeliest_on: Callable[[str], tuple[float, Point] | None],
) -> dict[str, Loop]:
    """``loops``, each one without a knot given the place along it where the knot
    checker's odds are highest (``likeliest_on``, :func:`_likeliest_on_loop` for a
    colour: asked every :data:`KNOT_SCAN_STEP` pawn widths, at most
    :data:`KNOT_SCAN_MOST` places); its ``knot_confidence`` those odds. A loop whose
    checker gives no finite answer stays without a knot."""
    knotless = [colour for colour, loop in loops.items() if loop.knot is None]
    if not knotless or not pawn_width > 0:
        return loops
    scanned = dict(loops)
    for colour in knotless:
        found = likeliest_on(colour)
        if found is None:
            continue
        odds, place = found
        # No mark lies on a loop left without a knot (any would have been taken): the
        # report calls the knot unsure, "marked 0.00".
        scanned[colour] = replace(loops[colour], knot=place, knot_confidence=odds, knot_mark=0.0)
    return scanned


def _likeliest_on_loop(
    loop: Loop,
    ring: LinearRing,
    pawn_width: float,
    knot_odds: Callable[[list[Point]], Sequence[float]],
) -> tuple[float, Point] | None:
    """The knot checker's highest odds along ``loop`` (``ring``), asked every
    :data:`KNOT_SCAN_STEP` pawn widths (at most :data:`KNOT_SCAN_MOST` places,
    :data:`KNOT_SCAN_BATCH` at a time), and where; None where no answer is finite."""
    length = ring.length
    if not math.isfinite(length) or not pawn_width > 0:
        return None
    spacing = max(KNOT_SCAN_STEP * pawn_width, length / KNOT_SCAN_MOST)
    along = resample_closed(np.asarray(loop.points, np.float64), spacing)
    places = [(float(x), float(y)) for x, y in along]
    odds: list[float] = []
    for start in range(0, len(places), KNOT_SCAN_BATCH):
        batch = places[start : start + KNOT_SCAN_BATCH]
        odds += [float(o) for _, o in zip(batch, knot_odds(batch), strict=True)]
    finite = [i for i in range(len(places)) if math.isfinite(odds[i])]
    if not finite:
        return None
    best = max(finite, key=odds.__getitem__)
    return odds[best], places[best]


def _seen_in_the_views(
    xy: Point, marks: list[Detection], reach: float, look_again: Callable[[Detection], Detection]
) -> float:
    """The eight views' mean of the strongest of ``marks`` within ``reach`` of ``xy``
    (of ``xy`` itself where none is)."""
    near = [m for m in marks if math.dist(m.xy, xy) <= reach]
    return look_again(max(near, key=lambda m: m.score, default=Detection(KNOT, "", xy, 0.0))).score


def _on_ring(ring: LinearRing, xy: Point) -> Point:
    """The point of ``ring`` nearest ``xy``."""
    on = ring.interpolate(ring.project(ShapelyPoint(xy)))
    return (on.x, on.y)


def _knot_away_from_crossings(
    loop: Loop,
    colour: str,
    rings: dict[str, LinearRing],
    detections: Detections,
    reach: float,
) -> Detection | None:
    """The knot mark to take instead of ``loop``'s knot, where that lies near a crossing
    of the loop on a faint mark or none (see :data:`CROSSING_KNOT_WIDTHS`), or None. The
    mark is judged at the point of the loop it would put the knot on."""
    if loop.knot is None or (loop.knot_mark or 0.0) >= KNOT_SCORE:
        return None
    ring = rings[colour]
    crossings = [ring.intersection(other) for c, other in rings.items() if c != colour]
    crossings = [x for x in crossings if not x.is_empty]
    clear = CROSSING_KNOT_WIDTHS * detections.pawn_width

    def near_a_crossing(xy: Point) -> bool:
        return any(x.distance(ShapelyPoint(xy)) < clear for x in crossings)

    if not near_a_crossing(loop.knot):
        return None
    away = [
        m
        for m in detections.knots(min_score=OWN_CORD_KNOT_SCORE)
        if ring.distance(ShapelyPoint(m.xy)) <= reach
        and all(
            other.distance(ShapelyPoint(m.xy)) > reach for c, other in rings.items() if c != colour
        )
        and not near_a_crossing(_on_ring(ring, m.xy))
    ]
    return max(away, key=lambda m: m.score, default=None)


def knot_reach(string_width: float, pawn_width: float) -> float:
    """How far from a loop a knot mark may lie and count for it: KNOT_REACH_WIDTHS
    string widths, or KNOT_REACH_PAWNS pawn widths where that is more."""
    return max(KNOT_REACH_WIDTHS * string_width, KNOT_REACH_PAWNS * pawn_width)


def _mark_at(
    xy: tuple[float, float] | None, marks: list[Detection], reach: float
) -> float | None:
    """The strongest of ``marks`` within ``reach`` of ``xy`` (0 if none; None without
    a point)."""
    if xy is None:
        return None
    return max((m.score for m in marks if math.dist(m.xy, xy) <= reach), default=0.0)


def _at_a_crossing(xy: tuple[float, float], rings: list[LinearRing], reach: float) -> bool:
    """Whether two of ``rings`` cross within ``reach`` of ``xy``."""
    point = ShapelyPoint(xy)
    for i, ring in enumerate(rings):
        for other in rings[i + 1 :]:
            crossings = ring.intersection(other)
            if not crossings.is_empty and crossings.distance(point) <= reach:
                return True
    return False


def _cords_at(detections: Detections, xy: tuple[float, float], radius: float) -> dict[str, float]:
    """How sure the cord map is (0..255, on average over the square ``radius`` round
    ``xy``) of each colour's cord; empty for a model without cord maps."""
    found = {}
    r = max(2, round(radius))
    x, y = round(xy[0]), round(xy[1])
    for colour, cord in detections.cords.items():
        # Both ends clamped: a negative end would wrap round to the far side.
        rows = slice(min(max(0, y - r), cord.shape[0]), min(max(0, y + r + 1), cord.shape[0]))
        columns = slice(min(max(0, x - r), cord.shape[1]), min(max(0, x + r + 1), cord.shape[1]))
        patch = cord[rows, columns]
        found[colour] = float(patch.mean()) if patch.size else 0.0
    return found


def _shows_cord(cords_there: dict[str, float], colour: str) -> bool:
    """Whether the cord map around a mark (:func:`_cords_at`) shows ``colour``'s cord:
    at least :data:`KNOT_COLOUR_SURE`, and at least half the likeliest colour's."""
    likeliest = max(cords_there.values(), default=0.0)
    return cords_there.get(colour, 0.0) >= max(KNOT_COLOUR_SURE, likeliest / 2)


def _knot_mark(
    traced: tuple[float, float] | None,
    marks: list[Detection],
    string_width: float,
    stronger_by: float = STRONGER_BY,
) -> Detection | None:
    """The mark to take for a loop's knot (see :func:`combine_knots`), or None."""
    if not marks:
        return None
    strongest = max(marks, key=lambda m: m.score)
    if traced is not None:
        agreeing = [m for m in marks if _agrees(m.xy, traced, string_width)]
        if agreeing:
            best_agreeing = max(agreeing, key=lambda m: m.score)
            if strongest.score - best_agreeing.score <= stronger_by:
                return best_agreeing
    return strongest


def _knot_looked_at_again(
    loop: Loop,
    marks: list[Detection],
    chosen: Detection | None,
    string_width: float,
    look_again: Callable[[Detection], Detection],
) -> Detection | None:
    """Where the choice of a loop's knot rests on a faint mark (under
    :data:`KNOT_CONTEST`), it is looked at again in eight views with the other
    likeliest marks and the tracer's knot, and the one marked clearly more in the mean
    (by :data:`KNOT_SWITCH_BY`) is taken instead (None: the tracer's knot). A knot
    half hidden or in a shadow is marked faintly from one side and more from the
    others; a lump that only looked like a knot falls off. A faint mark on a knot the
    separate stage found by its shape (a lump with two tails) is not put in question."""
    traced = loop.knot
    if chosen is None or chosen.score >= KNOT_CONTEST:
        return chosen
    near_traced = traced is not None and _agrees(chosen.xy, traced, string_width)
    if near_traced and loop.knot_confidence >= SHAPED_KNOT:
        return chosen
    others = sorted((m for m in marks if m is not chosen), key=lambda m: -m.score)
    candidates = others[: KNOT_CONTENDERS - 1]
    tracers_knot = None
    if traced is not None and not any(
        _agrees(m.xy, traced, string_width) for m in [chosen, *candidates]
    ):
        tracers_knot = Detection(KNOT, "", traced, 0.0)
        candidates.append(tracers_knot)
    if not candidates:
        return chosen
    chosen_mean = look_again(chosen).score
    best_mean, best = max(((look_again(m).score, m) for m in candidates), key=lambda p: p[0])
    if best_mean < chosen_mean + KNOT_SWITCH_BY:
        return chosen
    return None if best is tracers_knot else best


def _fainter_than_the_tracers(
    loop: Loop,
    chosen: Detection | None,
    string_width: float,
    look_again: Callable[[Detection], Detection] | None = None,
) -> bool:
    """Whether ``chosen``, a mark away from the knot the tracer found by its shape, is
    too faint to put in its place: under :data:`KNOT_SCORE` (taken only for showing on
    the loop's own cord), and, given ``look_again``, under it in the eight views too,
    and not :data:`KNOT_SWITCH_BY` above the tracer's knot there. The detector marks a
    knot in the open surely, or a half-hidden one more from some side; a mark so faint
    in every view is most often a lump of the cord (540074: a knot in the open on dark
    wood, not marked in the one look, the tracer's right, against a mark of 0.15 and
    0.12 in the views; the views mark the tracer's knot 0.16). Where the views mark the
    tracer's knot clearly less than the mark, the mark stands: a tracer's lump the
    views do not see is no likelier (710149, 750151: knots beside their demons marked
    0.11 and 0.14, 0.09 and 0.20 in the views, against tracer's lumps at 0.00). (Near
    the photo's edge, where the views have no room round the tracer's knot, they mark
    it 0.)"""
    if chosen is None or loop.knot is None or chosen.score >= KNOT_SCORE:
        return False
    if _agrees(chosen.xy, loop.knot, string_width):
        return False
    if look_again is None:
        return True
    mean = look_again(chosen).score
    if mean >= KNOT_SCORE:
        return False
    return mean < look_again(Detection(KNOT, "", loop.knot, 0.0)).score + KNOT_SWITCH_BY


def _in_the_open(
    chosen: Detection | None,
    marks: list[Detection],
    feet: list[tuple[float, float]],
    pawn_width: float,
    look_again: Callable[[Detection], Detection] | None = None,
) -> Detection | None:
    """``chosen``, or the strongest of ``marks`` away from the ``feet`` of the loop's
    own pawns where ``chosen`` stands at one (see :data:`PAWN_BASE_WIDTHS`); given
    ``look_again``, only if the eight views mark that one at least as much."""
    if chosen is None or not feet or pawn_width <= 0:
        return chosen

    def from_feet(mark: Detection) -> float:
        return _widths_from_feet(mark.xy, feet, pawn_width)

    if from_feet(chosen) >= PAWN_BASE_WIDTHS:
        return chosen
    in_the_open = [m for m in marks if from_feet(m) >= PAWN_BASE_WIDTHS and m.score >= KNOT_SCORE]
    if not in_the_open:
        return chosen
    best = max(in_the_open, key=lambda m: m.score)
    if best.score < chosen.score - OPEN_KNOT_SLACK:
        return chosen
    if look_again is not None and look_again(best).score < look_again(chosen).score:
        return chosen
    return best


def _at_pawn_base(knot: Point | None, colour: str, pawns: Pawns | None) -> bool:
    """Whether ``knot`` stands within :data:`PAWN_BASE_WIDTHS` pawn widths of the foot
    of one of ``pawns`` of its loop's ``colour``: the line :func:`_in_the_open` draws,
    measured at the knot on its loop."""
    if knot is None or pawns is None:
        return False
    feet = [p.foot for p in pawns.pawns if p.colour == colour]
    return _widths_from_feet(knot, feet, pawns.pawn_width) < PAWN_BASE_WIDTHS


def _onto_pawn_base(knot: Point, place: Point, colour: str, pawns: Pawns | None) -> bool:
    """Whether moving ``knot`` to ``place`` would take it from the open to the base of
    one of ``pawns`` of its loop's ``colour`` (:func:`_at_pawn_base`): a pawn's base on
    its own cord is taken for a knot, and a knot in the open is not moved there
    (1960182: a small knot in the open 0.03 to the checker asked eight ways, a green
    demon's base on the green cord 0.49)."""
    return _at_pawn_base(place, colour, pawns) and not _at_pawn_base(knot, colour, pawns)


def _widths_from_feet(xy: Point, feet: Sequence[Point], pawn_width: float) -> float:
    """How many ``pawn_width`` from ``xy`` the nearest of ``feet`` stands (infinite
    with no feet, or no positive width)."""
    if not feet or not pawn_width > 0:
        return math.inf
    return min(math.dist(xy, foot) for foot in feet) / pawn_width


def _agrees(xy: tuple[float, float], traced: tuple[float, float], string_width: float) -> bool:
    """Whether a mark at ``xy`` is the tracer's knot at ``traced`` seen again."""
    return math.dist(xy, traced) <= AGREE_WIDTHS * string_width


def trace_with_cords(separation: Separation, detections: Detections) -> Loops:
    """The loops, each traced on the colour rules' string, or on the detector's cord
    map where the rules saw too little of it or missed its knot.

    A colour whose loop the rules could not trace, or saw less than
    :data:`WEAK_SEEN` of, or whose loop runs away from its cord on the detector's map
    (see :data:`CORD_AGREEMENT`), is traced again on the detector's map of that cord;
    the reading that saw more of the loop is kept, with the rules' knot where that lies
    on it. A colour whose loop passes far from a sure knot mark on its own cord (see
    :data:`LOST_KNOT_SCORE`) is traced again on the cord map too, and that reading
    kept when it passes the mark. Where the rules saw no string pixel at all, the
    cord map is not used. First, the pawns the detector marks surely are taken out of
    the strings of their colour (:func:`without_marked_pawns`); last, each loop's long
    bridges and its stretches round crossings are laid along its cord where the map
    shows it (:func:`vision.trace.follow_bridges`,
    :func:`vision.trace.follow_through_crossings`).

    Raises
    ------
    ReadError
        When a colour has no loop either way.
    """
    separation = without_marked_pawns(separation, detections)
    found = trace_each(separation)
    # The cord map completes what the colour rules saw; where they saw not one pixel
    # of string (a grey photo, a photo of something else) it would only guess colours.
    if not any(mask.any() for mask in separation.strings.values()):
        return all_four(found)
    width = separation.string_width
    weak = [c for c, loop in found.items() if loop is None or loop.seen < WEAK_SEEN]
    weak = [c for c in weak if c in detections.cords]
    astray = [
        c
        for c, loop in found.items()
        if loop is not None
        and c in detections.cords
        and c not in weak
        and on_cord_share(loop, detections.cords[c], width) < CORD_AGREEMENT
    ]
    on_cords = set()
    if weak or astray:
        again = _trace_on_cords(separation, detections, weak + astray)
        for colour in weak + astray:
            old, new = found[colour], again[colour]
            if colour in astray and colour in too_short(found | {colour: new}):
                continue
            if new is not None and (old is None or new.seen > old.seen):
                found[colour] = with_knot_of(new, old, KNOT_REACH_WIDTHS * width)
                on_cords.add(colour)
    # Only now are the others there to compare with (the rules may have seen too
    # little of two colours to trace them).
    short = [c for c in too_short(found) if c in detections.cords]
    if short:
        again = _trace_on_cords(separation, detections, short)
        for colour in short:
            new = again[colour]
            if new is not None and colour not in too_short(found | {colour: new}):
                found[colour] = with_knot_of(new, found[colour], KNOT_REACH_WIDTHS * width)
                on_cords.add(colour)
        weak += short
    if on_cords:
        found = _apart_on_cords(separation, detections, found, on_cords)
    found = apart_from_the_others(separation, found, traced_on=on_cords)
    lost = {
        colour: marks
        for colour, marks in _knots_off_loops(found, detections, width).items()
        if colour not in weak and colour not in on_cords
    }
    if lost:
        again = _trace_on_cords(separation, detections, list(lost))
        for colour, marks in lost.items():
            old, new = found[colour], again[colour]
            if (
                new is not None
                and (old is None or new.seen >= old.seen - LOST_SEEN_SLACK)
                and _passes_any(new, marks, knot_reach(width, detections.pawn_width))
            ):
                found[colour] = new
    # Long bridges laid along the cord where the cord map sees it in the gap.
    for colour, loop in found.items():
        if loop is not None and colour in detections.cords:
            found[colour] = follow_bridges(loop, detections.cords[colour], width)
    # ... and the stretches beside crossings, where a trace bends along another cord's
    # shadow (each colour's crossings with the others as they are by then).
    for colour, loop in found.items():
        if loop is not None and colour in detections.cords:
            others = [other for c, other in found.items() if c != colour and other is not None]
            found[colour] = follow_through_crossings(
                loop, others, detections.cords[colour], width, separation.pawn_mask
            )
    return all_four(found)


def on_cord_share(loop: Loop, cord: NDArray[np.uint8], string_width: float) -> float:
    """The share of ``loop``'s length that runs where the detector's map of its cord
    marks that cord at least :data:`CORD_NEAR` within :data:`AGREE_REACH` string widths.

    Sampled about every string width along the closed polyline.
    """
    samples = resample_closed(np.asarray(loop.points, np.float64), max(string_width, 1.0))
    reach = max(AGREE_REACH * string_width, 1.0)
    r = int(math.ceil(reach))
    dy, dx = np.mgrid[-r : r + 1, -r : r + 1]
    inside = dx**2 + dy**2 <= reach**2
    height, width = cord.shape
    xs = np.clip(np.rint(samples[:, 0, None]) + dx[inside], 0, width - 1).astype(np.intp)
    ys = np.clip(np.rint(samples[:, 1, None]) + dy[inside], 0, height - 1).astype(np.intp)
    return float(np.mean(cord[ys, xs].max(axis=1) >= CORD_NEAR))


def without_marked_pawns(separation: Separation, detections: Detections) -> Separation:
    """``separation`` with each string's pixels near a sure pawn mark of its colour
    taken out where the cord map does not see that cord.

    The colour rules cut out the pawns they find by their thickness; a pawn of the
    string's colour they did not find (seen at a slant, only its lit side as thick as a
    cord) stays in the string, and the tracer takes a way through it: beside a crossing
    that moves the crossing off to the pawn. The detector marks the pawn, and its cord
    map marks the cord but not the pawn, so what is near the pawn's foot
    (:data:`PAWN_CUT_WIDTHS`) and not on the cord map is taken out. A cord the pawn
    hides is missing from both, and is bridged as under any pawn.
    """
    if not detections.cords:
        return separation
    strings = dict(separation.strings)
    copied: set[str] = set()
    reach = PAWN_CUT_WIDTHS * detections.pawn_width
    # Ghosts are white, no string's colour; knots are no pawns.
    for mark in detections.pawns(min_score=PAWN_CUT_SCORE):
        colour = mark.colour
        if colour not in strings or colour not in detections.cords:
            continue
        if not all(math.isfinite(v) for v in mark.xy):
            continue
        box, near = disc_window(strings[colour].shape, mark.xy, reach)
        cut = near & (detections.cords[colour][box] < CORD_SURE)
        if not (strings[colour][box] & cut).any():
            continue
        if colour not in copied:  # the caller's masks stay as they were
            strings[colour] = strings[colour].copy()
            copied.add(colour)
        strings[colour][box] &= ~cut
    return replace(separation, strings=strings)


def _apart_on_cords(
    separation: Separation,
    detections: Detections,
    found: dict[str, Loop | None],
    on_cords: Collection[str],
) -> dict[str, Loop | None]:
    """The loops traced on the detector's cord maps (``on_cords``) that follow another
    loop for long, traced there again without a corridor round every other loop
    (:func:`vision.trace.apart_from_the_others`).

    On a mat of a cord's own hue the network marks the other cords as that colour
    too (dev_0014: the blue map marks long stretches of the green and yellow cords),
    and the loop traced on the map runs along them. Only a loop whose longest stretch
    within :data:`ALONG_REACH` string widths of another loop is over
    :data:`ALONG_WIDTHS` widths is traced again; the new reading is kept when its
    longest such stretch is shorter and it saw at most :data:`APART_SEEN_SLACK` less of
    its loop, with the rules' knot where that lies on it (the map shows no lump).
    """
    width = separation.string_width

    def along(colour: str, loops: dict[str, Loop | None]) -> float:
        loop = loops[colour]
        others = [other for c, other in loops.items() if c != colour and other is not None]
        return 0.0 if loop is None else longest_run_along(loop, others, ALONG_REACH * width)

    # In the colours' own order: a set's order changes from run to run, and each
    # reading kept is one of the others for the next.
    following = [c for c in found if c in on_cords and along(c, found) > ALONG_WIDTHS * width]
    if not following:
        return found
    on_maps = replace(
        _on_cord_maps(separation, detections, following), by_shape=frozenset(following)
    )
    apart = apart_from_the_others(on_maps, found)
    kept = dict(found)
    for colour in following:
        old, new = found[colour], apart[colour]
        if (
            old is not None
            and new is not None
            and new.seen >= old.seen - APART_SEEN_SLACK
            and along(colour, kept | {colour: new}) < along(colour, kept)
        ):
            kept[colour] = with_knot_of(new, old, KNOT_REACH_WIDTHS * width)
    return kept


def longest_run_along(loop: Loop, others: list[Loop], reach: float) -> float:
    """The length of the longest stretch of ``loop`` that lies within ``reach`` of
    another loop (0 when none does): where two loops cross it is a few string widths;
    a loop that follows another for long has taken in that other's cord."""
    if not others:
        return 0.0
    points = resample_closed(loop.points, max(reach / 2, 1.0))
    near = np.zeros(len(points), bool)
    for other in others:
        ring = LinearRing(np.asarray(other.points))
        near |= shapely.distance(ring, shapely.points(points)) <= reach
    if near.all():
        return loop.length
    # Round the closed loop: start counting just after a point that is not near.
    near = np.roll(near, -int(np.argmin(near)) - 1)
    longest = run = 0
    for is_near in near:
        run = run + 1 if is_near else 0
        longest = max(longest, run)
    return longest * loop.length / len(points)


def _trace_on_cords(
    separation: Separation, detections: Detections, colours: list[str]
) -> dict[str, Loop | None]:
    """The loops of ``colours`` traced on the detector's cord maps."""
    return trace_each(_on_cord_maps(separation, detections, colours), colours=colours)


def _on_cord_maps(
    separation: Separation, detections: Detections, colours: Collection[str]
) -> Separation:
    """``separation`` with the strings of ``colours`` taken from the detector's cord
    maps (where it is at least :data:`CORD_SURE`)."""
    strings = dict(separation.strings)
    for colour in colours:
        strings[colour] = detections.cords[colour] >= CORD_SURE
    return replace(separation, strings=strings)


def _knots_off_loops(
    found: dict[str, Loop | None], detections: Detections, width: float
) -> dict[str, list[Detection]]:
    """Per colour, the sure knot marks on its own cord (the likeliest colour there)
    that lie beyond :func:`knot_reach` of its traced loop, but for those beside a demon
    of that colour (see :data:`LOST_KNOT_DEMON_SCORE`)."""
    lost: dict[str, list[Detection]] = {}
    reach = knot_reach(width, detections.pawn_width)
    rings = {c: LinearRing(np.asarray(loop.points)) for c, loop in found.items() if loop}
    demons: dict[str, list[Point]] = {}
    for pawn in detections.pawns(min_score=LOST_KNOT_DEMON_SCORE):
        if pawn.kind == DEMON:
            demons.setdefault(pawn.colour, []).append(pawn.xy)
    for mark in detections.knots(min_score=LOST_KNOT_SCORE):
        own = _cords_at(detections, mark.xy, KNOT_COLOUR_WIDTHS * width)
        if not own:
            continue
        colour = max(own, key=own.__getitem__)
        if colour not in rings or not _shows_cord(own, colour):
            continue
        if rings[colour].distance(ShapelyPoint(mark.xy)) <= reach:
            continue
        beside_demon = (
            _widths_from_feet(mark.xy, demons.get(colour, []), detections.pawn_width)
            < PAWN_BASE_WIDTHS
        )
        if not beside_demon:
            lost.setdefault(colour, []).append(mark)
    return lost


def _passes_any(loop: Loop, marks: list[Detection], reach: float) -> bool:
    ring = LinearRing(np.asarray(loop.points))
    return any(ring.distance(ShapelyPoint(m.xy)) <= reach for m in marks)
