'use strict';

// Small helpers shared by the simulator's parts (Node built-ins only).

const crypto = require('node:crypto');

const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** Read the whole request body into a Buffer (rejects with code 'E_TOO_LARGE' past the limit). */
function readBody(req, limit = MAX_BODY_BYTES) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		req.on('data', (chunk) => {
			size += chunk.length;
			if (size > limit) {
				const err = new Error('request body too large');
				err.code = 'E_TOO_LARGE';
				reject(err);
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** Media type of a Content-Type header, lower case, without parameters ('' when absent). */
function mediaType(contentType) {
	if (!contentType) return '';
	return String(contentType).split(';')[0].trim().toLowerCase();
}

/** application/json, text/json and application/*+json. */
function isJsonType(type) {
	return (
		type === 'application/json' ||
		type === 'text/json' ||
		/^application\/[\w.+-]+\+json$/.test(type)
	);
}

function sendJson(
	res,
	status,
	value,
	headers = {},
	contentType = 'application/json; charset=utf-8',
) {
	const body = value === undefined ? '' : JSON.stringify(value);
	res.writeHead(status, {
		'content-type': contentType,
		'content-length': Buffer.byteLength(body),
		'cache-control': 'no-store',
		...headers,
	});
	res.end(body);
}

function sendText(res, status, text, contentType, headers = {}) {
	res.writeHead(status, {
		'content-type': contentType,
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/** Parse a body as JSON; returns { ok, value } or { ok:false, error }. Empty body → { ok:true, value: undefined }. */
function parseJson(buffer) {
	const text = buffer.toString('utf8');
	if (text.trim() === '') return { ok: true, value: undefined };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		return { ok: false, error: error.message };
	}
}

function isPlainObject(value) {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sha256(data) {
	return crypto.createHash('sha256').update(data).digest();
}

/** Unsigned 32-bit integer derived from a string (stable across runs). */
function hashInt(text) {
	return sha256(String(text)).readUInt32BE(0);
}

/**
 * Deterministic pseudo random generator seeded from a string.
 * rng() → [0,1); rng.int(a,b) inclusive; rng.pick(list); rng.float(a,b,decimals).
 */
function seededRandom(seedText) {
	let state = hashInt(seedText) || 0x9e3779b9;
	const next = () => {
		// mulberry32
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const rng = () => next();
	rng.int = (min, max) => min + Math.floor(next() * (max - min + 1));
	rng.pick = (list) => list[Math.floor(next() * list.length)];
	rng.float = (min, max, decimals = 1) => round(min + next() * (max - min), decimals);
	return rng;
}

function round(value, decimals = 0) {
	const factor = 10 ** decimals;
	return Math.round(value * factor) / factor;
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Constant-time string comparison (hashes first so lengths may differ). */
function safeEqual(a, b) {
	return crypto.timingSafeEqual(sha256(String(a)), sha256(String(b)));
}

function base64url(buffer) {
	return Buffer.from(buffer).toString('base64url');
}

module.exports = {
	MAX_BODY_BYTES,
	readBody,
	mediaType,
	isJsonType,
	sendJson,
	sendText,
	parseJson,
	isPlainObject,
	sha256,
	hashInt,
	seededRandom,
	round,
	sleep,
	safeEqual,
	base64url,
};
