/**
 * json-scan.ts against a second implementation: JSON.parse (RFC 8259) and a recursive depth
 * count over its result. For any valid JSON the byte scanners must agree with them.
 */
import * as fc from 'fast-check';

import {
	exceedsDepth,
	topLevelMembers,
	withoutBom,
} from '../../../../nodes/shared/webhook/json-scan';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** Nesting depth of a parsed JSON value: an object or array is one level more than its deepest child. */
function depthOf(value: unknown): number {
	if (typeof value !== 'object' || value === null) return 0;
	const children = Array.isArray(value) ? value : Object.values(value);
	return 1 + children.reduce<number>((max, child) => Math.max(max, depthOf(child)), 0);
}

/** The members as topLevelMembers should find them: parse each token again. */
const parsedMembers = (body: string, names: string[]) =>
	new Map(
		[...topLevelMembers(bytes(body), names)].map(([name, token]) => [
			name,
			JSON.parse(token.toString('utf8')) as unknown,
		]),
	);

describe('withoutBom', () => {
	it('drops exactly a leading EF BB BF', () => {
		const b = (...xs: number[]) => Buffer.from(xs);
		expect(withoutBom(b(0xef, 0xbb, 0xbf, 0x7b))).toEqual(b(0x7b));
		expect(withoutBom(b(0xef, 0xbb, 0xbf))).toEqual(b());
		expect(withoutBom(b(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf))).toEqual(b(0xef, 0xbb, 0xbf));
		for (const kept of [
			b(),
			b(0xef),
			b(0xef, 0xbb),
			b(0xef, 0xbb, 0xbe),
			b(0xef, 0xba, 0xbf),
			b(0xee, 0xbb, 0xbf),
			b(0x20, 0xef, 0xbb, 0xbf),
		]) {
			expect(withoutBom(kept)).toEqual(kept);
		}
	});
});

describe('exceedsDepth', () => {
	it('agrees with the depth of the parsed value for any JSON', () => {
		fc.assert(
			fc.property(fc.json({ depthSize: 'medium' }), fc.nat(8), (text, max) => {
				const depth = depthOf(JSON.parse(text));
				expect(exceedsDepth(bytes(text), max)).toBe(depth > max);
			}),
			{ numRuns: 500 },
		);
	});

	it('counts brackets only outside strings, escaped quotes included', () => {
		expect(exceedsDepth(bytes('[]'), 0)).toBe(true);
		expect(exceedsDepth(bytes('[]'), 1)).toBe(false);
		expect(exceedsDepth(bytes('{"a":[{}]}'), 2)).toBe(true);
		expect(exceedsDepth(bytes('{"a":[{}]}'), 3)).toBe(false);
		expect(exceedsDepth(bytes('"[[[{{{"'), 0)).toBe(false);
		expect(exceedsDepth(bytes('["\\"[[["]'), 1)).toBe(false);
		expect(exceedsDepth(bytes('["\\\\"[[]]]'), 2)).toBe(true);
		expect(exceedsDepth(bytes('[[],[],[]]'), 2)).toBe(false);
		expect(exceedsDepth(bytes(''), 0)).toBe(false);
	});

	it('works on bytes that are not JSON: stray closers never count below zero', () => {
		expect(exceedsDepth(bytes(']]['), 0)).toBe(true);
		expect(exceedsDepth(bytes('}}}[['), 1)).toBe(true);
		expect(exceedsDepth(bytes('[[[[[['), 5)).toBe(true);
		expect(exceedsDepth(bytes('[[[[['), 5)).toBe(false);
	});
});

describe('topLevelMembers', () => {
	it('finds the same member values as JSON.parse for any JSON object, compact or indented', () => {
		const names = ['a', 'id', 'webhookId', ''];
		fc.assert(
			fc.property(
				fc.dictionary(fc.constantFrom('a', 'b', 'id', 'webhookId', '', 'x"y'), fc.jsonValue()),
				fc.constantFrom(undefined, 1, '\t'),
				(object, indent) => {
					const text = JSON.stringify(object, null, indent);
					const expected = new Map(
						names
							.filter((name) => Object.prototype.hasOwnProperty.call(object, name))
							.map((name) => [name, JSON.parse(JSON.stringify(object[name])) as unknown]),
					);
					expect(parsedMembers(text, names)).toEqual(expected);
				},
			),
			{ numRuns: 300 },
		);
	});

	it('returns the exact bytes of each token', () => {
		const body = ' { "webhookId" : 1.50 ,\n"id":"\\u0061\\"}" , "n": [1, {"id": 2}], "t":true}';
		const found = topLevelMembers(bytes(body), ['webhookId', 'id', 'n', 't']);
		expect([...found].map(([k, v]) => [k, v.toString('utf8')])).toEqual([
			['webhookId', '1.50'],
			['id', '"\\u0061\\"}"'],
			['n', '[1, {"id": 2}]'],
			['t', 'true'],
		]);
	});

	it('decodes member names as JSON.parse does; the last occurrence wins', () => {
		const found = parsedMembers('{"\\u0069d":"one","id":"two","x":0,"\\u0069d":"three"}', ['id']);
		expect(found).toEqual(new Map([['id', 'three']]));
		expect(JSON.parse('{"\\u0069d":"one","id":"two","\\u0069d":"three"}').id).toBe('three');
	});

	it('skips a member whose name is no valid string and goes on', () => {
		expect(parsedMembers('{"\\x":1,"id":2}', ['id', '\\x'])).toEqual(new Map([['id', 2]]));
	});

	it('is empty for anything but an object', () => {
		for (const text of ['', '   ', '[{"id":1}]', '"id"', '1', 'null', 'x{"id":1}']) {
			expect([text, topLevelMembers(bytes(text), ['id']).size]).toEqual([text, 0]);
		}
	});

	it('stops at the first thing it does not understand, keeping what it found', () => {
		const cases: Array<[string, Array<[string, unknown]>]> = [
			['{"id":1,"webhookId":}', [['id', 1]]],
			['{"id":1 "webhookId":2}', [['id', 1]]],
			['{"id":1,"webhookId" 2}', [['id', 1]]],
			['{"id":1,webhookId:2}', [['id', 1]]],
			['{"id":1,"webhookId":"open', [['id', 1]]],
			['{"id":1,"webhookId":[1,2', [['id', 1]]],
			['{"id":1,"webhookId":{"a":"}', [['id', 1]]],
			['{"id":1,"webhookId', [['id', 1]]],
			['{"id":1,', [['id', 1]]],
			['{"id":1', [['id', 1]]],
			['{"id":', []],
			['{', []],
		];
		for (const [text, expected] of cases) {
			expect([text, parsedMembers(text, ['id', 'webhookId'])]).toEqual([text, new Map(expected)]);
		}
	});

	it('reads members only inside a leading `{`, only after a colon, and a next one only after a comma', () => {
		for (const text of ['["id":1]', 'x"id":1}', '{x":1,"id":2}', '{"id"=1}', '{"x":"a"y"id":2}']) {
			expect([text, topLevelMembers(bytes(text), ['id']).size]).toEqual([text, 0]);
		}
		expect(topLevelMembers(bytes('{"id":1]'), ['id']).get('id')?.toString()).toBe('1');
	});

	it('a number or literal ends at whitespace, a comma or a closing bracket', () => {
		for (const text of [
			'{"id":-12e3}',
			'{"id":-12e3 }',
			'{"id":-12e3\n,"x":1}',
			'{"id":-12e3\r}',
		]) {
			expect([text, topLevelMembers(bytes(text), ['id']).get('id')?.toString()]).toEqual([
				text,
				'-12e3',
			]);
		}
		expect(topLevelMembers(bytes('{"x":[1],"id":null}'), ['id']).get('id')?.toString()).toBe(
			'null',
		);
	});
});
