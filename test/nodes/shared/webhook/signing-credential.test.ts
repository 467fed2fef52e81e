import { ConsentFlowWebhookSigningApi } from '../../../../credentials/ConsentFlowWebhookSigningApi.credentials';
import { ConsentFlow } from '../../../../nodes/ConsentFlow/ConsentFlow.node';
import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import {
	MIN_SECRET_LENGTH,
	SIGNING_CREDENTIAL,
	signingCredentialCheck,
} from '../../../../nodes/shared/webhook/signing-credential';

const KEY = 'a-signing-value-of-enough-length';

describe('signing credential', () => {
	it('is named as the credential type is, in both nodes that use it', () => {
		expect(new ConsentFlowWebhookSigningApi().name).toBe(SIGNING_CREDENTIAL);
		for (const node of [new ConsentFlowTrigger(), new ConsentFlow()]) {
			const names = (node.description.credentials ?? []).map((credential) => credential.name);
			expect(names).toContain(SIGNING_CREDENTIAL);
		}
	});

	it('accepts a usable secret with or without a previous one', () => {
		expect(signingCredentialCheck({ secret: KEY })).toBeNull();
		expect(
			signingCredentialCheck({ secret: KEY, previousSecret: '', signatureHeader: '' }),
		).toBeNull();
		expect(
			signingCredentialCheck({ secret: KEY, previousSecret: [...KEY].reverse().join('') }),
		).toBeNull();
	});

	it('names the signing secret first, then the header, then the previous secret', () => {
		expect(signingCredentialCheck({ secret: '', previousSecret: 'short' })).toBe(
			'Signing Secret must be filled in with the secret webhook key the consent flow service issued.',
		);
		expect(signingCredentialCheck({ secret: KEY, signatureHeader: 'bad header' })).toBe(
			'Signature Header must be empty or a valid HTTP header name.',
		);
		expect(signingCredentialCheck({ secret: KEY, previousSecret: 'short' })).toBe(
			'Previous Signing Secret must be at least 16 characters long (it has 5): paste the whole key, or empty.',
		);
		expect(signingCredentialCheck({ secret: KEY, previousSecret: 42 })).toMatch(
			/^Previous Signing Secret must be filled in with the secret webhook key/,
		);
	});

	const ok = 'x'.repeat(MIN_SECRET_LENGTH);
	const secretRule = (secret: unknown) => signingCredentialCheck({ secret });

	it('the secret: the documented boundaries, each problem named with its rule', () => {
		expect(MIN_SECRET_LENGTH).toBe(16);
		expect(secretRule(ok)).toBeNull();
		expect(secretRule(`${ok} x`)).toBeNull();
		expect(secretRule(ok.slice(1))).toBe(
			'Signing Secret must be at least 16 characters long (it has 15): paste the whole key.',
		);
		for (const missing of ['', undefined, 1234567890123456]) {
			expect(secretRule(missing)).toMatch(
				/^Signing Secret must be filled in with the secret webhook key/,
			);
		}
		for (const broken of [`${ok}\r`, `${ok}\n`, 'a\nb', `${ok}\r\n${ok}`]) {
			expect(secretRule(broken)).toBe('Signing Secret must be on one line, exactly as issued.');
		}
		for (const padded of [` ${ok}`, `${ok}\t`]) {
			expect(secretRule(padded)).toBe(
				'Signing Secret must not start or end with whitespace, which would become part of the HMAC key.',
			);
		}
	});

	it('checks a configured header name as an RFC 9110 token', () => {
		const headerRule = (signatureHeader: unknown) =>
			signingCredentialCheck({ secret: ok, signatureHeader });
		expect(headerRule('x-a-sbl-signature')).toBeNull();
		expect(headerRule("!#$%&'*+.^_`|~09AZaz-")).toBeNull();
		expect(headerRule('  x-sig  ')).toBeNull();
		for (const bad of ['x sig', 'x:sig', 'x"sig', 'x(sig)', 'x/sig', 'ø', 'x\u0000']) {
			expect([bad, headerRule(bad)]).toEqual([
				bad,
				'Signature Header must be empty or a valid HTTP header name.',
			]);
		}
		expect(headerRule('')).toBeNull();
		expect(headerRule('   ')).toBeNull();
		expect(headerRule(42)).toBeNull();
	});
});
