import { ConsentFlowWebhookSigningApi } from '../../../../credentials/ConsentFlowWebhookSigningApi.credentials';
import { ConsentFlow } from '../../../../nodes/ConsentFlow/ConsentFlow.node';
import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import {
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
		expect(signingCredentialCheck({ secret: '', previousSecret: 'short' })).toMatch(
			/^The signing secret is empty/,
		);
		expect(signingCredentialCheck({ secret: KEY, signatureHeader: 'bad header' })).toMatch(
			/signature header "bad header" is not a valid HTTP header name/,
		);
		expect(signingCredentialCheck({ secret: KEY, previousSecret: 'short' })).toMatch(
			/^The previous signing secret is 5 characters long/,
		);
		expect(signingCredentialCheck({ secret: KEY, previousSecret: 42 })).toMatch(
			/^The previous signing secret is not text/,
		);
	});
});
