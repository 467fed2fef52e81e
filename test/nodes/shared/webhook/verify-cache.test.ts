import { CREDENTIAL_TTL_MS } from '../../../../nodes/shared/webhook/verify';
import { freshCredentialCache, type CredentialCache } from '../../../support/fresh-modules';

const KEY_A = 'a-signing-value-of-enough-length';
const KEY_B = KEY_A.split('').reverse().join('');
const facts = { secret: KEY_A, signatureHeader: '' };

// Every test runs in a new n8n process: a fresh copy of verify.ts, nothing cached.
let cachedCredential: CredentialCache['cachedCredential'];
let dueForRefresh: CredentialCache['dueForRefresh'];
let readThrough: CredentialCache['readThrough'];
let rememberCredential: CredentialCache['rememberCredential'];
beforeEach(() => {
	({ cachedCredential, dueForRefresh, readThrough, rememberCredential } = freshCredentialCache());
});

describe('credential cache', () => {
	it('serves a credential for less than the TTL after it was read, not at or after it', () => {
		rememberCredential('c1', facts, 1000);
		expect(cachedCredential('c1', 1000)).toEqual(facts);
		expect(cachedCredential('c1', 1000 + CREDENTIAL_TTL_MS - 1)).toEqual(facts);
		expect(cachedCredential('c1', 1000 + CREDENTIAL_TTL_MS)).toBeUndefined();
		// Expired entries are gone, also for an earlier clock afterwards.
		expect(cachedCredential('c1', 1000)).toBeUndefined();
	});

	it('does not trust a clock that went back', () => {
		rememberCredential('c1', facts, 50_000);
		expect(cachedCredential('c1', 49_999)).toBeUndefined();
	});

	it('keeps credentials apart by id and never caches without an id or a secret', () => {
		rememberCredential('c1', facts, 0);
		rememberCredential('c2', { secret: KEY_B, signatureHeader: 'X-A' }, 0);
		expect(cachedCredential('c1', 1)?.secret).toBe(facts.secret);
		expect(cachedCredential('c2', 1)).toEqual({
			secret: KEY_B,
			signatureHeader: 'X-A',
		});
		rememberCredential(undefined, facts, 0);
		rememberCredential('', facts, 0);
		rememberCredential('c3', { secret: '', signatureHeader: '' }, 0);
		expect(cachedCredential(undefined, 1)).toBeUndefined();
		expect(cachedCredential('', 1)).toBeUndefined();
		expect(cachedCredential('c3', 1)).toBeUndefined();
	});

	it('returns a copy: changing it does not change the cache', () => {
		rememberCredential('c1', facts, 0);
		const got = cachedCredential('c1', 1)!;
		got.secret = 'changed';
		expect(cachedCredential('c1', 1)?.secret).toBe(facts.secret);
	});

	it('returns every field it cached, also one added to the credential later (issue 44)', () => {
		const withMore = { ...facts, previousSecret: KEY_B, addedLater: 'kept' };
		rememberCredential('c1', withMore, 0);
		expect(cachedCredential('c1', 1)).toEqual(withMore);
	});

	it('holds at most 100 credentials, dropping the oldest read first', () => {
		for (let i = 0; i < 101; i++) rememberCredential(`c${i}`, facts, 0);
		expect(cachedCredential('c0', 1)).toBeUndefined();
		expect(cachedCredential('c1', 1)).toEqual(facts);
		expect(cachedCredential('c100', 1)).toEqual(facts);
	});
});

describe('credential cache and rotation', () => {
	it('keeps the previous secret beside the current one', () => {
		const rotating = { secret: KEY_A, signatureHeader: '', previousSecret: KEY_B };
		rememberCredential('r1', rotating, 0);
		expect(cachedCredential('r1', 1)).toEqual(rotating);
	});
});

describe('reading through the cache', () => {
	it('callers asking while a read runs share it; later callers get the remembered copy', async () => {
		let reads = 0;
		let finish: (f: typeof facts) => void = () => {};
		const read = () => {
			reads += 1;
			return new Promise<typeof facts>((resolve) => (finish = resolve));
		};
		const waiting = [readThrough('c1', read), readThrough('c1', read), readThrough('c1', read)];
		finish(facts);
		const got = await Promise.all(waiting);
		expect(got).toEqual([facts, facts, facts]);
		got[0].secret = 'changed';
		expect((await readThrough('c1', read)).secret).toBe(KEY_A);
		expect(reads).toBe(1);
	});

	it('reads every time without an id, and does not remember a read that found no secret', async () => {
		let reads = 0;
		const none = async () => {
			reads += 1;
			return { secret: '', signatureHeader: '' };
		};
		await readThrough(undefined, async () => ((reads += 1), facts));
		await readThrough(undefined, async () => ((reads += 1), facts));
		await readThrough('c2', none);
		await readThrough('c2', none);
		expect(reads).toBe(4);
	});

	it('is due for a refresh from half its TTL until it expires, never without an entry or with a clock gone back', () => {
		expect(dueForRefresh('c1', 0)).toBe(false);
		rememberCredential('c1', facts, 10_000);
		expect(dueForRefresh('c1', 10_000 + CREDENTIAL_TTL_MS / 2 - 1)).toBe(false);
		expect(dueForRefresh('c1', 10_000 + CREDENTIAL_TTL_MS / 2)).toBe(true);
		expect(dueForRefresh('c1', 10_000 + CREDENTIAL_TTL_MS - 1)).toBe(true);
		expect(dueForRefresh('c1', 10_000 + CREDENTIAL_TTL_MS)).toBe(false);
		expect(dueForRefresh('c1', 9_999)).toBe(false);
		expect(dueForRefresh(undefined, 10_000 + CREDENTIAL_TTL_MS / 2)).toBe(false);
	});
});
