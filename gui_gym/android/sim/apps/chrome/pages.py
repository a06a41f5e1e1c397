"""The pages of AndroidWorld's three browser tasks, written here from what they do.

AndroidWorld writes one page, ``task.html``, to the phone's Download folder with the instance's
``browser_task_seed`` in it; everything random on the page comes from that seed through one
linear congruential generator (``seed = (1664525 * seed + 1013904223) mod 2^32``, each draw
``seed / 2^32``, the first draw after one step). These pages draw the same numbers in the same
order, so a seed gives AndroidWorld's puzzle:

- BrowserMaze (title "Maze Puzzle"): a 4 x 4 maze carved by a randomised depth-first search from
  the top-left cell (a stack; each popped cell is opened, the search stops at the bottom-right
  cell; one direction list ``up, down, left, right`` is shuffled in place by Fisher-Yates at every
  pop, never reset; the in-grid neighbours still walls are pushed in that order); ``X`` starts top
  left, the goal (green) is bottom right; the buttons Up, Down, Left and Right move it through open
  cells; reaching the goal replaces the page with the heading "Success!".
- BrowserMultiply (title "Memory Task"): a number from 1 to 10 shown at load; "Click Me" shows a
  new one four times, the fifth click shows a number field ("Enter the product") and Submit; the
  product of the five numbers puts "Success!" under it.
- BrowserDraw (title "Color Challenge"): three target colours drawn without replacement from 24
  and shown at the top, a 300 x 300 canvas, the 24 colours as buttons, Clear and Submit; Submit
  says "Success!" when every target colour is among the canvas's pixels.

:func:`puzzle` computes an instance's puzzle in Python (the same draws), for the expert and tests.
"""

from __future__ import annotations

from typing import Any

#: the 24 colours of BrowserDraw's palette, in its order
PALETTE = (
    "#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#00ffff", "#800000", "#008000", "#000080", "#808000",
    "#800080", "#008080", "#ffa500", "#ff1493", "#9932cc", "#20b2aa", "#4b0082", "#00ff7f", "#ff6347", "#00ced1",
    "#9400d3", "#f0e68c", "#ff8c00", "#228b22",
)  # fmt: skip
MAZE_SIZE = 4
SUCCESS = "Success!"

_RNG = """
function makeRng(seed) {
  let s = seed;
  return () => { s = (1664525 * s + 1013904223) % 4294967296; return s / 4294967296; };
}
"""

_MAZE = """<!DOCTYPE html>
<html><head><title>Maze Puzzle</title>
<style>
.row { display: flex; }
.cell { width: 110px; height: 110px; border: 1px solid black; display: flex; align-items: center;
        justify-content: center; font-size: 56px; }
.wall { background: black; }
.character { color: black; }
.goal { background: green; }
.controls { margin-top: 10px; }
.controls button { margin-right: 5px; padding: 15px 28px; font-size: 30px; }
</style></head>
<body>
<div id="maze"></div>
<div class="controls">
<button onclick="move(-1, 0)">Up</button><button onclick="move(1, 0)">Down</button>
<button onclick="move(0, -1)">Left</button><button onclick="move(0, 1)">Right</button>
</div>
<script>
RNG
const random = makeRng(SEED);
const N = 4;
const grid = Array.from({length: N}, () => Array(N).fill('#'));
const dirs = [[-1, 0], [1, 0], [0, -1], [0, 1]];
const stack = [[0, 0]];
while (stack.length) {
  const [r, c] = stack.pop();
  grid[r][c] = ' ';
  if (r === N - 1 && c === N - 1) break;
  for (let i = dirs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [dirs[i], dirs[j]] = [dirs[j], dirs[i]];
  }
  for (const [dr, dc] of dirs) {
    const nr = r + dr, nc = c + dc;
    if (nr >= 0 && nr < N && nc >= 0 && nc < N && grid[nr][nc] === '#') stack.push([nr, nc]);
  }
}
grid[0][0] = ' ';
grid[N - 1][N - 1] = '$';
const at = {row: 0, col: 0};
function draw() {
  const maze = document.getElementById('maze');
  maze.innerHTML = '';
  for (let r = 0; r < N; r++) {
    const row = document.createElement('div');
    row.className = 'row';
    for (let c = 0; c < N; c++) {
      const cell = document.createElement('div');
      cell.className = 'cell';
      if (grid[r][c] === '#') cell.classList.add('wall');
      if (r === at.row && c === at.col) { cell.classList.add('character'); cell.textContent = 'X'; }
      else if (grid[r][c] === '$') cell.classList.add('goal');
      row.appendChild(cell);
    }
    maze.appendChild(row);
  }
}
function move(dr, dc) {
  const r = at.row + dr, c = at.col + dc;
  if (r < 0 || r >= N || c < 0 || c >= N || grid[r][c] === '#') return;
  at.row = r; at.col = c;
  draw();
  if (grid[r][c] === '$') document.body.innerHTML = '<h1>Success!</h1>';
}
draw();
</script>
</body></html>
"""

_MULTIPLY = """<!DOCTYPE html>
<html><head><title>Memory Task</title>
<style>
.container { text-align: center; margin-top: 50px; }
.number { font-size: 48px; }
.button { padding: 10px 20px; font-size: 24px; }
.form { display: none; }
.form input, .form button { font-size: 18px; }
</style></head>
<body>
<div class="container">
<div id="number" class="number"></div>
<button id="button" class="button" onclick="clicked()">Click Me</button>
<div id="form" class="form">
<input id="answer" type="number" placeholder="Enter the product"><button onclick="check()">Submit</button>
</div>
<div id="result"></div>
</div>
<script>
RNG
const random = makeRng(SEED);
const numbers = [];
let clicks = 0;
function next() {
  const n = Math.floor(random() * 10) + 1;
  numbers.push(n);
  document.getElementById('number').textContent = n;
}
function clicked() {
  clicks += 1;
  if (clicks < 5) { next(); return; }
  document.getElementById('button').style.display = 'none';
  document.getElementById('number').style.display = 'none';
  document.getElementById('form').style.display = 'block';
}
function check() {
  const product = numbers.reduce((a, b) => a * b, 1);
  const ok = parseInt(document.getElementById('answer').value) === product;
  document.getElementById('result').innerHTML = ok ? '<h2>Success!</h2>' : '<h2></h2>';
}
next();
</script>
</body></html>
"""

_DRAW = """<!DOCTYPE html>
<html><head><title>Color Challenge</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { text-align: center; font-size: 14px; }
#taskColors div { display: inline-block; width: 30px; height: 30px; }
#canvasContainer { display: flex; justify-content: center; }
#canvas { border: 1px solid black; touch-action: none; }
#colorPalette { display: flex; flex-wrap: wrap; justify-content: center; max-width: 300px; margin: 0 auto; }
.color-button { width: 30px; height: 30px; margin: 3px; border: none; }
</style></head>
<body>
<div id="taskColors"></div>
<div id="canvasContainer"><canvas id="canvas" width="300" height="300"></canvas></div>
<br><p>Available Colors:</p>
<div id="colorPalette"></div>
<br><button id="clearButton">Clear</button><button id="submitButton">Submit</button>
<p id="result"></p>
<script>
RNG
const random = makeRng(SEED);
const palette = PALETTE;
const left = palette.slice();
const task = [];
for (let k = 0; k < 3; k++) task.push(left.splice(Math.floor(random() * left.length), 1)[0]);
for (const color of task) {
  const swatch = document.createElement('div');
  swatch.style.cssText = 'width: 50px; height: 50px; margin: 5px; background: ' + color;
  document.getElementById('taskColors').appendChild(swatch);
}
const canvas = document.getElementById('canvas');
const ctx = canvas.getContext('2d');
for (const color of palette) {
  const b = document.createElement('button');
  b.className = 'color-button';
  b.style.background = color;
  b.onclick = () => { ctx.strokeStyle = color; };
  document.getElementById('colorPalette').appendChild(b);
}
let drawing = false, last = null;
function point(e) {
  const r = canvas.getBoundingClientRect(), p = e.touches ? e.touches[0] : e;
  return [(p.clientX - r.left) * canvas.width / r.width, (p.clientY - r.top) * canvas.height / r.height];
}
function start(e) { drawing = true; last = point(e); }
function stroke(e) {
  if (!drawing) return;
  const p = point(e);
  ctx.beginPath(); ctx.moveTo(last[0], last[1]); ctx.lineTo(p[0], p[1]); ctx.stroke();
  last = p;
}
function stop() { drawing = false; }
canvas.addEventListener('mousedown', start); canvas.addEventListener('touchstart', start);
canvas.addEventListener('mousemove', stroke); canvas.addEventListener('touchmove', stroke);
for (const t of ['mouseup', 'mouseout', 'touchend']) canvas.addEventListener(t, stop);
document.getElementById('clearButton').onclick = () => ctx.clearRect(0, 0, canvas.width, canvas.height);
document.getElementById('submitButton').onclick = () => {
  const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data, seen = new Set();
  for (let i = 0; i < d.length; i += 4) {
    seen.add('#' + [d[i], d[i + 1], d[i + 2]].map(v => v.toString(16).padStart(2, '0')).join(''));
  }
  document.getElementById('result').textContent = task.every(c => seen.has(c)) ? 'Success!' : '';
};
</script>
</body></html>
"""

_PAGES = {"BrowserMaze": _MAZE, "BrowserMultiply": _MULTIPLY, "BrowserDraw": _DRAW}


def page(task: str, seed: int) -> bytes:
    """``task.html`` for ``task``'s instance ``seed`` (its bytes on the phone)."""
    html = _PAGES[task].replace("RNG", _RNG).replace("SEED", str(int(seed)))
    return html.replace("PALETTE", "[" + ", ".join(f"'{c}'" for c in PALETTE) + "]").encode()


def _draws(seed: int) -> Any:
    s = int(seed)
    while True:
        s = (1664525 * s + 1013904223) % 4294967296
        yield s / 4294967296


def puzzle(task: str, seed: int) -> Any:
    """The instance's puzzle, drawn as its page draws it: the maze's rows (``#`` wall, ``$`` goal),
    the five numbers, or the three target colours."""
    draws = _draws(seed)
    if task == "BrowserMultiply":
        return [int(next(draws) * 10) + 1 for _ in range(5)]
    if task == "BrowserDraw":
        left, out = list(PALETTE), []
        for _ in range(3):
            out.append(left.pop(int(next(draws) * len(left))))
        return out
    n = MAZE_SIZE
    grid = [["#"] * n for _ in range(n)]
    dirs = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    stack = [(0, 0)]
    while stack:
        r, c = stack.pop()
        grid[r][c] = " "
        if (r, c) == (n - 1, n - 1):
            break
        for i in range(len(dirs) - 1, 0, -1):
            j = int(next(draws) * (i + 1))
            dirs[i], dirs[j] = dirs[j], dirs[i]
        for dr, dc in dirs:
            nr, nc = r + dr, c + dc
            if 0 <= nr < n and 0 <= nc < n and grid[nr][nc] == "#":
                stack.append((nr, nc))
    grid[0][0] = " "
    grid[n - 1][n - 1] = "$"
    return ["".join(row) for row in grid]
