'use strict';

// Minimal valid PDF 1.4 writer: one page of Helvetica text, exact xref offsets, and an optional
// uncompressed grey image XObject (referenced from the page resources, not drawn) as padding for
// large documents. The padding is streamed from one cached 256 KiB block, never built whole.

const { sha256 } = require('./util');

const IMAGE_WIDTH = 1024;
const BLOCK_ROWS = 256; // the pattern repeats every 256 rows
let patternBlock = null;

function imageBlock() {
	if (!patternBlock) {
		patternBlock = Buffer.alloc(IMAGE_WIDTH * BLOCK_ROWS);
		for (let y = 0; y < BLOCK_ROWS; y++) {
			for (let x = 0; x < IMAGE_WIDTH; x++) patternBlock[y * IMAGE_WIDTH + x] = (x + y) & 0xff;
		}
	}
	return patternBlock;
}

/** PDF literal string: escape \ ( ), Latin-1 characters above 126 as octal (WinAnsi agrees on æøå), others as '?'. */
function pdfString(text) {
	let out = '(';
	for (const ch of String(text)) {
		const code = ch.codePointAt(0);
		if (ch === '\\' || ch === '(' || ch === ')') out += `\\${ch}`;
		else if (code >= 32 && code <= 126) out += ch;
		else if (code >= 160 && code <= 255) out += `\\${code.toString(8).padStart(3, '0')}`;
		else out += '?';
	}
	return `${out})`;
}

function pdfDate(iso) {
	const d = new Date(iso);
	if (Number.isNaN(d.getTime())) return null;
	return `D:${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

/**
 * Lay out a document.
 * @param {{ seed: string, title: string, lines: string[], date?: string, paddingBytes?: number }} doc
 * @returns {{ head: Buffer, imageLength: number, tail: Buffer, length: number }}
 */
function layout(doc, imageHeight) {
	const hasImage = imageHeight > 0;
	const imageLength = hasImage ? IMAGE_WIDTH * imageHeight : 0;
	const content = [
		'BT',
		'/F1 18 Tf',
		'20 TL',
		'50 780 Td',
		`${pdfString(doc.title)} Tj`,
		'/F1 11 Tf',
		'16 TL',
		'T*',
		...doc.lines.map((line) => `T* ${pdfString(line)} Tj`),
		'ET',
	].join('\n');
	const contentBytes = Buffer.from(content, 'latin1');
	const resources = `<< /Font << /F1 4 0 R >>${hasImage ? ' /XObject << /Im1 7 0 R >>' : ''} >>`;
	const created = doc.date ? pdfDate(doc.date) : null;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources ${resources} /Contents 5 0 R >>`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
		null, // content stream, below
		`<< /Title ${pdfString(doc.title)} /Producer (SBL simulator)${created ? ` /CreationDate (${created})` : ''} >>`,
	];
	const parts = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
	let length = parts[0].length;
	const offsets = [];
	const push = (buffer) => {
		parts.push(buffer);
		length += buffer.length;
	};
	objects.forEach((body, index) => {
		offsets.push(length);
		const number = index + 1;
		if (body === null) {
			push(
				Buffer.from(`${number} 0 obj\n<< /Length ${contentBytes.length} >>\nstream\n`, 'latin1'),
			);
			push(contentBytes);
			push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
		} else {
			push(Buffer.from(`${number} 0 obj\n${body}\nendobj\n`, 'latin1'));
		}
	});
	if (hasImage) {
		offsets.push(length);
		push(
			Buffer.from(
				`7 0 obj\n<< /Type /XObject /Subtype /Image /Width ${IMAGE_WIDTH} /Height ${imageHeight} ` +
					`/ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${imageLength} >>\nstream\n`,
				'latin1',
			),
		);
	}
	const head = Buffer.concat(parts);
	let xrefStart = head.length + imageLength;
	let tailText = '';
	if (hasImage) {
		tailText += '\nendstream\nendobj\n';
		xrefStart += tailText.length;
	}
	const count = offsets.length + 1;
	const id = sha256(`pdf:${doc.seed}`).toString('hex').slice(0, 32);
	tailText +=
		`xref\n0 ${count}\n0000000000 65535 f \n` +
		offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
		`trailer\n<< /Size ${count} /Root 1 0 R /Info 6 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xrefStart}\n%%EOF\n`;
	const tail = Buffer.from(tailText, 'latin1');
	return { head, imageLength, tail, length: head.length + imageLength + tail.length };
}

/** Plan a document; with paddingBytes the total size lands within IMAGE_WIDTH bytes below head+padding. */
function planPdf(doc) {
	const target = doc.totalBytes || 0;
	let plan = layout(doc, 0);
	if (target > plan.length) {
		// Two passes: the digits of /Height and /Length change the head size slightly.
		let height = Math.floor((target - plan.length - 200) / IMAGE_WIDTH);
		for (let i = 0; i < 3; i++) {
			plan = layout(doc, height);
			height += Math.floor((target - plan.length) / IMAGE_WIDTH);
		}
		plan = layout(doc, height);
	}
	return plan;
}

function waitDrain(res) {
	return new Promise((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.on('drain', done);
		res.on('close', done);
	});
}

/** Write a planned PDF to a response (headers must already be sent), honouring back-pressure. */
async function writePdf(res, plan) {
	if (!res.write(plan.head)) await waitDrain(res);
	const block = imageBlock();
	let remaining = plan.imageLength;
	while (remaining > 0) {
		if (res.destroyed || res.writableEnded) return;
		const n = Math.min(remaining, block.length);
		remaining -= n;
		if (!res.write(n === block.length ? block : block.subarray(0, n))) await waitDrain(res);
	}
	if (!res.destroyed) res.end(plan.tail);
}

/** The whole document as one Buffer (small documents and tests only). */
function renderPdf(doc) {
	const plan = planPdf(doc);
	const image = Buffer.alloc(plan.imageLength);
	const block = imageBlock();
	for (let off = 0; off < plan.imageLength; off += block.length)
		block.copy(image, off, 0, Math.min(block.length, plan.imageLength - off));
	return Buffer.concat([plan.head, image, plan.tail]);
}

module.exports = { planPdf, writePdf, renderPdf, pdfString };
