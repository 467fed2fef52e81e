// Every example opens tidy (issue 13): no two nodes, with the label n8n writes under each, overlap
// on the canvas. A fast guard on the JSON; the browser test (test/e2e/editor.test.js) measures the
// rendered canvas. Boxes: n8n's canvas draws a node 100 × 100 at its position (taller when it has
// many outputs: about 24 px per output handle) and its name below, up to ~40 px tall and
// overhanging by ~30 px each side. A sticky note covers its own width × height (parameters); it
// lies behind nodes, so a node on a note is hidden in part: notes must not touch nodes either.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(__dirname, '../../examples');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));

function outputsOf(workflow, node) {
	return (workflow.connections[node.name]?.main ?? []).length;
}

function box(workflow, node) {
	const [x, y] = node.position;
	const height = Math.max(100, 24 * outputsOf(workflow, node) + 16);
	return { name: node.name, left: x - 30, right: x + 130, top: y, bottom: y + height + 40 };
}

function noteBox(note) {
	const [x, y] = note.position;
	// n8n's sticky note defaults: 240 × 160
	const { width = 240, height = 160 } = note.parameters;
	return { name: note.name, left: x, right: x + width, top: y, bottom: y + height };
}

const overlap = (a, b) =>
	a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe.each(files)('examples/%s', (file) => {
	const workflow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
	const nodes = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');

	test('no two nodes (with their labels) overlap', () => {
		const boxes = nodes.map((n) => box(workflow, n));
		const clashes = [];
		for (let i = 0; i < boxes.length; i++) {
			for (let j = i + 1; j < boxes.length; j++) {
				if (overlap(boxes[i], boxes[j])) clashes.push(`${boxes[i].name} × ${boxes[j].name}`);
			}
		}
		expect(clashes).toEqual([]);
	});

	test('no sticky note lies under a node or another note', () => {
		const notes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote').map(noteBox);
		const boxes = nodes.map((n) => box(workflow, n));
		const clashes = [];
		notes.forEach((note, i) => {
			for (const b of boxes) if (overlap(note, b)) clashes.push(`${note.name} × ${b.name}`);
			for (const other of notes.slice(i + 1))
				if (overlap(note, other)) clashes.push(`${note.name} × ${other.name}`);
		});
		expect(clashes).toEqual([]);
	});

	test('every example has a sticky note saying what to set when it is imported by hand', () => {
		const notes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
		expect(notes.length).toBeGreaterThan(0);
		expect(notes.map((n) => n.parameters.content).join('\n')).toMatch(/credential/i);
	});
});

test('the guard catches overlap (the old per-event layout: follow-ups 100 px apart)', () => {
	const workflow = {
		connections: {},
		nodes: [0, 100].map((y, i) => ({
			name: `n${i}`,
			position: [420, y],
			type: 'n8n-nodes-base.noOp',
		})),
	};
	expect(overlap(box(workflow, workflow.nodes[0]), box(workflow, workflow.nodes[1]))).toBe(true);
});
