import {
	CREDENTIAL_TTL_MS,
	cachedCredential,
	rememberCredential,
	resetCredentialCache,
} from '../../../../nodes/shared/webhook/credential-cache';

const KEY_A = 'a-signing-value-of-enough-length';
const KEY_B = KEY_A.split('').reverse().join('');
const facts = { secret: KEY_A, signatureHeader: '' };

describe('credential cache', () => {
	beforeEach(() => resetCredentialCache());

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

	it('holds at most 100 credentials, dropping the oldest read first', () => {
		for (let i = 0; i < 101; i++) rememberCredential(`c${i}`, facts, 0);
		expect(cachedCredential('c0', 1)).toBeUndefined();
		expect(cachedCredential('c1', 1)).toEqual(facts);
		expect(cachedCredential('c100', 1)).toEqual(facts);
	});
});

describe('credential cache and rotation', () => {
	beforeEach(() => resetCredentialCache());

	it('keeps the previous secret beside the current one, and nothing when there is none', () => {
		const rotating = { secret: KEY_A, signatureHeader: '', previousSecret: KEY_B };
		rememberCredential('r1', rotating, 0);
		expect(cachedCredential('r1', 1)).toEqual(rotating);
		rememberCredential('r2', { ...facts, previousSecret: '' }, 0);
		expect(cachedCredential('r2', 1)).toEqual(facts);
	});
});
