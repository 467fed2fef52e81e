/**
 * failure.ts against its documented contract: whatever n8n's request helper throws becomes a
 * plain `HttpFailure` (status, lower-cased response headers, parsed body, network code, OAuth2
 * error code per RFC 6749 §5.2), `classifyFailure` gives exactly one kind, and `serviceText`
 * reads the error body forms the service documents (message fields, fields[], problem details
 * errors{} per RFC 9457).
 */
import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import {
	NETWORK_ERRORS,
	classifyFailure,
	isHttpFailure,
	isNotSent,
	networkWords,
	normaliseHttpError,
	serviceText,
} from '../../../../nodes/shared/transport/failure';
import { tokenFailureReason } from '../../../../nodes/shared/n8n-compat';
import type { HttpFailure } from '../../../../nodes/shared/transport/failure';
import { redactPatterns } from '../../../../nodes/shared/transport/redact';

const failure = (partial: Partial<HttpFailure>): HttpFailure => ({
	headers: {},
	message: 'x',
	tokenFailure: false,
	...partial,
});

describe('network codes', () => {
	test.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])(
		'%s: the connection never carried the request',
		(code) => {
			expect(isNotSent(code)).toBe(true);
			expect(classifyFailure(failure({ code }))).toBe('network-not-sent');
		},
	);

	test.each([
		'ECONNRESET',
		'ECONNABORTED',
		'ETIMEDOUT',
		'ESOCKETTIMEDOUT',
		'EPIPE',
		'UND_ERR_SOCKET',
		'UND_ERR_HEADERS_TIMEOUT',
		'UND_ERR_BODY_TIMEOUT',
		'UND_ERR_CONNECT_TIMEOUT',
	])('%s: the request may have been sent', (code) => {
		expect(isNotSent(code)).toBe(false);
		expect(classifyFailure(failure({ code }))).toBe('network-maybe-sent');
	});

	test('unknown, empty or missing codes are not "not sent"', () => {
		expect(isNotSent(undefined)).toBe(false);
		expect(isNotSent('')).toBe(false);
		expect(isNotSent('EWHATEVER')).toBe(false);
		expect(isNotSent('toString')).toBe(false);
	});

	test('words for each code, a generic text otherwise', () => {
		expect(networkWords('ECONNREFUSED')).toBe('the connection was refused');
		expect(networkWords('ENOTFOUND')).toBe('the host name was not found');
		expect(networkWords('ETIMEDOUT')).toBe('the connection timed out');
		expect(networkWords('UND_ERR_HEADERS_TIMEOUT')).toBe('the answer timed out');
		for (const [code, { words }] of Object.entries(NETWORK_ERRORS)) {
			expect(networkWords(code)).toBe(words);
			expect(words).not.toBe('');
		}
		expect(networkWords(undefined)).toBe('the connection failed');
		expect(networkWords('')).toBe('the connection failed');
		expect(networkWords('EWHATEVER')).toBe('the connection failed');
	});
});

describe('normaliseHttpError', () => {
	test('status, headers and body of an axios-like error; no request config is kept', () => {
		const error = Object.assign(new Error('Request failed with status code 422'), {
			config: { headers: { Authorization: 'Bearer SECRET' } },
			response: {
				status: 422,
				headers: { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'], 'X-Null': null },
				data: '  {"message":"bad"}  ',
			},
		});
		const result = normaliseHttpError(error);
		expect(result).toEqual({
			status: 422,
			headers: { 'content-type': 'application/json', 'x-multi': 'a, b' },
			body: { message: 'bad' },
			code: undefined,
			message: 'Request failed with status code 422',
			tokenFailure: false,
			oauthError: undefined,
		});
		expect(JSON.stringify(result)).not.toContain('SECRET');
	});

	test('headers objects with toJSON() are read through it; numbers become strings', () => {
		const headers = {
			toJSON: () => ({ 'Retry-After': 5, 'X-Undefined': undefined }),
			'x-not-this': 'hidden',
		};
		const result = normaliseHttpError({ message: 'm', response: { status: 429, headers } });
		expect(result.headers).toEqual({ 'retry-after': '5' });
	});

	test('no headers or odd headers give an empty record', () => {
		expect(normaliseHttpError({ message: 'm', response: { status: 500 } }).headers).toEqual({});
		expect(
			normaliseHttpError({ message: 'm', response: { status: 500, headers: 'x' } }).headers,
		).toEqual({});
		expect(
			normaliseHttpError({ message: 'm', response: { status: 500, headers: { toJSON: () => 3 } } })
				.headers,
		).toEqual({});
	});

	test('statusCode (request-style) and a response found through the cause chain', () => {
		expect(normaliseHttpError({ message: 'm', response: { statusCode: 404 } }).status).toBe(404);
		const deep = { cause: { cause: { cause: { response: { status: 503, body: 'busy' } } } } };
		const result = normaliseHttpError({ message: 'outer', cause: deep });
		expect(result.status).toBe(503);
		expect(result.body).toBe('busy');
	});

	test('the cause chain is followed five levels deep, not further', () => {
		const nest = (levels: number, leaf: object): object => {
			let value: object = leaf;
			for (let i = 0; i < levels; i++) value = { cause: value };
			return value;
		};
		expect(normaliseHttpError(nest(4, { response: { status: 503 } })).status).toBe(503);
		expect(normaliseHttpError(nest(5, { response: { status: 503 } })).status).toBeUndefined();
		expect(normaliseHttpError(nest(4, { code: 'ECONNRESET' })).code).toBe('ECONNRESET');
		expect(normaliseHttpError(nest(5, { code: 'ECONNRESET' })).code).toBeUndefined();
		expect(normaliseHttpError(nest(4, { body: { error: 'invalid_scope' } })).oauthError).toBe(
			'invalid_scope',
		);
		expect(
			normaliseHttpError(nest(5, { body: { error: 'invalid_scope' } })).oauthError,
		).toBeUndefined();
	});

	test('a response without a numeric status is not the response', () => {
		expect(normaliseHttpError({ message: 'm', response: { status: NaN } }).status).toBeUndefined();
		const result = normaliseHttpError({
			message: 'm',
			response: { status: '503', data: 'x' },
			cause: { response: { status: 502, data: 'inner' } },
		});
		expect(result.status).toBe(502);
		expect(result.body).toBe('inner');
	});

	test("n8n's httpCode is used when there is no response, only when it is a status", () => {
		expect(normaliseHttpError({ message: 'm', httpCode: '404' }).status).toBe(404);
		expect(normaliseHttpError({ message: 'm', httpCode: 100 }).status).toBe(100);
		expect(normaliseHttpError({ message: 'm', httpCode: '99' }).status).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', httpCode: 'ECONNREFUSED' }).status).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', httpCode: '404.5' }).status).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', httpCode: null }).status).toBeUndefined();
		expect(
			normaliseHttpError({ message: 'm', httpCode: '404', response: { status: 503 } }).status,
		).toBe(503);
	});

	test('network codes: E… and UND_ERR… codes only', () => {
		expect(normaliseHttpError({ message: 'm', code: 'ECONNRESET' }).code).toBe('ECONNRESET');
		expect(normaliseHttpError({ message: 'm', code: 'UND_ERR_SOCKET' }).code).toBe(
			'UND_ERR_SOCKET',
		);
		expect(normaliseHttpError({ message: 'm', code: 'ERR_BAD_REQUEST' }).code).toBe(
			'ERR_BAD_REQUEST',
		);
		expect(normaliseHttpError({ message: 'm', code: 'xECONNRESET' }).code).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', code: 'ECONNRESET1' }).code).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', code: 'Econnreset' }).code).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', code: 404 }).code).toBeUndefined();
		expect(normaliseHttpError({ message: 'm', code: 'xUND_ERR_SOCKET' }).code).toBeUndefined();
		expect(
			normaliseHttpError({ message: 'm', code: { toString: () => 'ECONNRESET' } }).code,
		).toBeUndefined();
		expect(
			normaliseHttpError({ message: 'm', code: 'bad', cause: { code: 'ETIMEDOUT' } }).code,
		).toBe('ETIMEDOUT');
	});

	test('the message is the error message, or the thrown value as text', () => {
		expect(normaliseHttpError(new Error('boom')).message).toBe('boom');
		expect(normaliseHttpError('plain').message).toBe('plain');
		expect(normaliseHttpError(null)).toMatchObject({ message: 'null', headers: {} });
		expect(normaliseHttpError({ message: 3 }).message).toBe('[object Object]');
	});

	test('bodies: JSON parsed, other text kept and clipped, a Buffer decoded, blank is none', () => {
		const body = (data: unknown) =>
			normaliseHttpError({ message: 'm', response: { status: 400, data } }).body;
		expect(body('{"a":1}')).toEqual({ a: 1 });
		expect(body(Buffer.from('{"a":2}'))).toEqual({ a: 2 });
		expect(body(Buffer.from('å text'))).toBe('å text');
		expect(body(' not json ')).toBe('not json');
		expect(body('   ')).toBeUndefined();
		expect(body('')).toBeUndefined();
		expect(body('x'.repeat(500))).toBe('x'.repeat(500));
		expect(body('x'.repeat(501))).toBe(`${'x'.repeat(500)}…`);
		expect(body({ already: 'parsed' })).toEqual({ already: 'parsed' });
		expect(
			normaliseHttpError({ message: 'm', response: { status: 400, data: null, body: 'b' } }).body,
		).toBe('b');
	});

	test('without a response, the body n8n kept as context.data is read', () => {
		expect(normaliseHttpError({ message: 'm', context: { data: '{"message":"x"}' } }).body).toEqual(
			{ message: 'x' },
		);
		expect(normaliseHttpError({ message: 'm', context: 'x' }).body).toBeUndefined();
		expect(
			normaliseHttpError({
				message: 'm',
				response: { status: 400, data: 'own' },
				context: { data: 'context' },
			}).body,
		).toBe('own');
	});

	describe('token failures', () => {
		test.each([
			['Failed to acquire OAuth2 access token: boom'],
			['could not reach the token endpoint'],
			['invalid_client'],
			['INVALID_SCOPE given'],
			['oauth2 trouble'],
		])('%j is a token failure', (message) => {
			expect(normaliseHttpError({ message }).tokenFailure).toBe(true);
		});

		test('the cause message counts too, a non-string one does not', () => {
			expect(
				normaliseHttpError({ message: 'm', cause: { message: 'access token' } }).tokenFailure,
			).toBe(true);
			expect(normaliseHttpError({ message: 'm', cause: { message: 5 } }).tokenFailure).toBe(false);
			expect(
				normaliseHttpError({ message: 'm', cause: { message: ['oauth2'] } }).tokenFailure,
			).toBe(false);
			expect(
				normaliseHttpError({ message: 'Request failed', cause: 'access token' }).tokenFailure,
			).toBe(false);
		});

		test('an OAuth2 error code in the body makes a token failure', () => {
			const result = normaliseHttpError({ message: 'm', body: { error: 'unauthorized_client' } });
			expect(result).toMatchObject({ tokenFailure: true, oauthError: 'unauthorized_client' });
			expect(normaliseHttpError({ message: 'm', body: { error: 3 } }).oauthError).toBeUndefined();
		});

		// RFC 6749 §5.2 error descriptions as @n8n/client-oauth2 words them, mapped back to the code
		test.each([
			[
				'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).',
				'invalid_client',
			],
			['The requested scope is invalid, unknown, or malformed.', 'invalid_scope'],
			[
				'The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid.',
				'invalid_grant',
			],
			[
				'The client is not authorized to request an authorization code using this method.',
				'unauthorized_client',
			],
			[
				'The authorization grant type is not supported by the authorization server.',
				'unsupported_grant_type',
			],
			[
				'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
				'invalid_request',
			],
		])('%j → %s', (text, code) => {
			const prefixed = `Failed to acquire OAuth2 access token:  ${text}`;
			expect(normaliseHttpError({ message: prefixed })).toMatchObject({
				oauthError: code,
				tokenFailure: true,
			});
			expect(normaliseHttpError({ message: 'wrapper', cause: { message: text } }).oauthError).toBe(
				code,
			);
			// only at the start of the reason
			expect(normaliseHttpError({ message: `x ${text}` }).oauthError).toBeUndefined();
		});

		test('the text mapping is not used when the service answered with a status', () => {
			const result = normaliseHttpError({
				message: 'The requested scope is invalid, unknown, or malformed.',
				response: { status: 400 },
			});
			expect(result.oauthError).toBeUndefined();
		});

		test("tokenFailureReason drops n8n's prefix and surrounding space only", () => {
			expect(tokenFailureReason('Failed to acquire OAuth2 access token:   bad secret ')).toBe(
				'bad secret',
			);
			expect(tokenFailureReason('X: failed to acquire oauth2 access token: bad')).toBe('bad');
			expect(tokenFailureReason('Failed to acquire OAuth2 access token:bad')).toBe('bad');
			expect(tokenFailureReason(' plain reason ')).toBe('plain reason');
		});
	});
});

describe('isHttpFailure', () => {
	test('a normalised failure is one; errors and partial objects are not', () => {
		expect(isHttpFailure(failure({}))).toBe(true);
		expect(isHttpFailure(normaliseHttpError(new Error('x')))).toBe(true);
		expect(isHttpFailure(new Error('x'))).toBe(false);
		expect(isHttpFailure(null)).toBe(false);
		expect(isHttpFailure('x')).toBe(false);
		expect(isHttpFailure({ message: 'x', tokenFailure: false })).toBe(false);
		expect(isHttpFailure({ message: 'x', headers: {} })).toBe(false);
		expect(isHttpFailure({ message: 1, headers: {}, tokenFailure: false })).toBe(false);
	});
});

describe('classifyFailure', () => {
	test('a stop wins over everything, a token failure over any status', () => {
		expect(classifyFailure(failure({ cancelled: true, tokenFailure: true, status: 401 }))).toBe(
			'cancelled',
		);
		expect(classifyFailure(failure({ cancelled: false, status: 401 }))).toBe('not-authenticated');
		expect(classifyFailure(failure({ tokenFailure: true, status: 503 }))).toBe('token-refused');
		expect(classifyFailure(failure({ oauthError: 'invalid_client', status: 400 }))).toBe(
			'token-refused',
		);
		expect(classifyFailure(failure({ oauthError: '', status: 400 }))).toBe('rejected');
	});

	test.each([
		[409, 'rejected'],
		[402, 'unexpected-status'],
		[405, 'unexpected-status'],
		[499, 'unexpected-status'],
		[300, 'unexpected-status'],
		[501, 'server-error'],
		[505, 'server-error'],
		[599, 'server-error'],
		[600, 'server-error'],
	])('status %d → %s', (status, kind) => {
		expect(classifyFailure(failure({ status }))).toBe(kind);
	});

	test('a status wins over a network code', () => {
		expect(classifyFailure(failure({ status: 404, code: 'ECONNREFUSED' }))).toBe('not-found');
	});
});

describe('serviceText', () => {
	test('nothing to read', () => {
		for (const body of [undefined, null, '']) expect(serviceText(body)).toEqual({ fields: [] });
		expect(serviceText(5)).toEqual({ fields: [] });
		expect(serviceText([1, 2])).toEqual({ fields: [] });
	});

	test('a string is kept, clipped to 500 characters', () => {
		expect(serviceText('x'.repeat(500))).toEqual({ text: 'x'.repeat(500), fields: [] });
		expect(serviceText('x'.repeat(501)).text).toBe(`${'x'.repeat(500)}…`);
	});

	test('the first message-like field in order detail, message, error_description, title, error', () => {
		const all = {
			detail: 'd',
			message: 'm',
			error_description: 'ed',
			title: 't',
			error: 'e',
		};
		expect(serviceText(all).text).toBe('d');
		expect(serviceText({ ...all, detail: undefined }).text).toBe('m');
		expect(serviceText({ ...all, detail: '', message: 3 }).text).toBe('ed');
		expect(serviceText({ title: 't', error: 'e' }).text).toBe('t');
		expect(serviceText({ error: 'e' })).toEqual({ text: 'e', fields: [] });
		expect(serviceText({ message: 'y'.repeat(600) }).text).toBe(`${'y'.repeat(500)}…`);
	});

	test('without a message and without fields the body itself is the text', () => {
		expect(serviceText({ code: 7 })).toEqual({ text: '{"code":7}', fields: [] });
		expect(serviceText({ message: '' }).text).toBe('{"message":""}');
		const circular: Record<string, unknown> = {};
		circular.self = circular;
		expect(serviceText(circular)).toEqual({ text: undefined, fields: [] });
		expect(serviceText({ big: 'z'.repeat(600) }).text).toHaveLength(501);
	});

	test('fields[]: each entry with a field name and a message, defaults for missing parts', () => {
		expect(
			serviceText({
				fields: [
					{ field: 'a', message: 'wrong' },
					{ field: 3, message: 4 },
					'not an entry',
					null,
					{ message: 'only message' },
				],
			}),
		).toEqual({
			text: undefined,
			fields: [
				{ field: 'a', message: 'wrong' },
				{ field: '', message: 'invalid' },
				{ field: '', message: 'only message' },
			],
		});
		expect(serviceText({ fields: 'a' })).toEqual({ text: '{"fields":"a"}', fields: [] });
	});

	test('problem details errors{}: a list of messages or a single one per field', () => {
		expect(serviceText({ errors: { a: ['x', 'y'], b: 'z', c: 5 } }).fields).toEqual([
			{ field: 'a', message: 'x, y' },
			{ field: 'b', message: 'z' },
			{ field: 'c', message: '5' },
		]);
		expect(serviceText({ errors: ['x'] })).toEqual({ text: '{"errors":["x"]}', fields: [] });
		expect(
			serviceText({ fields: [{ field: 'f', message: 'm' }], errors: { e: ['n'] } }).fields,
		).toEqual([
			{ field: 'f', message: 'm' },
			{ field: 'e', message: 'n' },
		]);
	});

	test('only plain objects are read (not class instances or buffers)', () => {
		expect(serviceText(Buffer.from('{"message":"x"}'))).toEqual({ fields: [] });
		expect(
			serviceText(
				new (class {
					message = 'x';
				})(),
			),
		).toEqual({ fields: [] });
		expect(serviceText(Object.create(null))).toEqual({ fields: [] });
		expect(
			serviceText({
				fields: [
					new (class {
						field = 'f';
					})(),
				],
			}).fields,
		).toEqual([]);
	});
});

// Moved from transport.test.ts (named after no module): errors as n8n wraps them.
const node: INode = {
	id: 'n',
	name: 'N',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function axiosError(status: number, headers: Record<string, string>, data: unknown): Error {
	const error = new Error(`Request failed with status code ${status}`);
	Object.assign(error, {
		isAxiosError: true,
		config: { headers: { Authorization: 'Bearer SECRET-TOKEN' } },
		response: { status, headers, data },
	});
	return error;
}

describe('normaliseHttpError', () => {
	test('reads status, headers and body through a NodeApiError wrapper and drops request config', () => {
		const wrapped = new NodeApiError(
			node,
			axiosError(429, { 'Retry-After': '2' }, '{"message":"slow down"}') as never,
		);
		const result = normaliseHttpError(wrapped);
		expect(result.status).toBe(429);
		expect(result.headers['retry-after']).toBe('2');
		expect(result.body).toEqual({ message: 'slow down' });
		expect(result.tokenFailure).toBe(false);
		expect(JSON.stringify(result)).not.toContain('SECRET-TOKEN');
	});

	test('recognises a token failure and its OAuth2 error code', () => {
		const authError = Object.assign(new Error('Client authentication failed'), {
			body: { error: 'invalid_client' },
		});
		const error = Object.assign(
			new Error('Failed to acquire OAuth2 access token: Client authentication failed'),
			{
				cause: authError,
			},
		);
		const result = normaliseHttpError(new NodeApiError(node, error as never));
		expect(result.tokenFailure).toBe(true);
		expect(result.oauthError).toBe('invalid_client');
		expect(result.status).toBeUndefined();
	});

	test('keeps the network error code when there is no response', () => {
		const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
			code: 'ECONNREFUSED',
		});
		const result = normaliseHttpError(new NodeApiError(node, error as never));
		expect(result.code).toBe('ECONNREFUSED');
		expect(result.status).toBeUndefined();
	});
});

describe('serviceText', () => {
	test('prefers the service message', () => {
		expect(
			serviceText({ error: 'bad_request', message: 'nationalId: must be 11 digits' }).text,
		).toBe('nationalId: must be 11 digits');
		expect(serviceText({ error: 'invalid_client', error_description: 'wrong secret' }).text).toBe(
			'wrong secret',
		);
		expect(serviceText('plain text').text).toBe('plain text');
		expect(serviceText(undefined).text).toBeUndefined();
		expect(serviceText({ other: 1 }).text).toBe('{"other":1}');
	});

	test('reads both field-error forms: fields[] and problem details errors{}', () => {
		expect(
			serviceText({ message: 'bad', fields: [{ field: 'nationalId', message: 'wrong' }] }).fields,
		).toEqual([{ field: 'nationalId', message: 'wrong' }]);
		const problem = serviceText({
			title: 'Bad Request',
			detail: 'Out of range',
			errors: { knr: ['too big', 'odd'] },
		});
		expect(problem.text).toBe('Out of range');
		expect(problem.fields).toEqual([{ field: 'knr', message: 'too big, odd' }]);
	});

	test('a stream or buffer body gives no text', () => {
		expect(serviceText(Buffer.from('x')).text).toBeUndefined();
		class FakeStream {
			message = 'not a body';
			pipe(): void {}
		}
		expect(serviceText(new FakeStream()).text).toBeUndefined();
	});
});

describe('classifyFailure', () => {
	// The kinds each node words: one table, checked status by status.
	const cases: Array<[Partial<HttpFailure>, string]> = [
		[{ tokenFailure: true }, 'token-refused'],
		[{ oauthError: 'invalid_client' }, 'token-refused'],
		[{ status: 401 }, 'not-authenticated'],
		[{ status: 403 }, 'forbidden'],
		[{ status: 404 }, 'not-found'],
		[{ status: 400 }, 'rejected'],
		[{ status: 422 }, 'rejected'],
		[{ status: 429 }, 'rate-limited'],
		[{ status: 502 }, 'unavailable'],
		[{ status: 503 }, 'unavailable'],
		[{ status: 504 }, 'unavailable'],
		[{ status: 500 }, 'server-error'],
		[{ status: 507 }, 'server-error'],
		[{ status: 418 }, 'unexpected-status'],
		[{ code: 'ECONNREFUSED' }, 'network-not-sent'],
		[{ code: 'ENOTFOUND' }, 'network-not-sent'],
		[{ code: 'ECONNRESET' }, 'network-maybe-sent'],
		[{ code: 'ETIMEDOUT' }, 'network-maybe-sent'],
		[{}, 'network-maybe-sent'],
	];
	test.each(cases)('%j → %s', (partial, kind) => {
		expect(classifyFailure(failure(partial))).toBe(kind);
	});
});

describe('serviceText on a large body searches a window only, and still cuts nothing open', () => {
	const jwt = `eyJ${'a'.repeat(40)}.eyJ${'b'.repeat(40)}.${'c'.repeat(40)}`;

	test('a token across the 500-character cut is redacted whole; the text is 500 characters and …', () => {
		const body = { message: `${'x '.repeat(240)}${jwt}${' y'.repeat(100_000)}` };
		const { text } = serviceText(body, redactPatterns);
		expect(text).toHaveLength(501);
		expect(text!.endsWith('…')).toBe(true);
		expect(text).not.toContain('eyJ');
		expect(text).not.toMatch(/aaaa|bbbb/);
	});

	test('an identity number across the cut shows none of its digits', () => {
		const id = '01817000092';
		const { text } = serviceText(`${'x'.repeat(495)} ${id} ${'z'.repeat(50_000)}`, redactPatterns);
		expect(text).toHaveLength(501);
		expect(text!.slice(496)).toMatch(/^\*{4}…$/);
	});

	test('a 1 MB body of JWT starts gives its first 500 characters, none a token piece', () => {
		const { text } = serviceText({ message: 'eyJ'.repeat(350_000) }, redactPatterns);
		expect(text).toHaveLength(501);
	});
});
