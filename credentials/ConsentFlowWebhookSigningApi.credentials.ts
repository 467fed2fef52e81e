import type { ICredentialType, INodeProperties } from 'n8n-workflow';

// Tested by the trigger node (`testedBy: 'signingSecretTest'`): no HTTP call can check a signing key.
export class ConsentFlowWebhookSigningApi implements ICredentialType {
	name = 'consentFlowWebhookSigningApi';

	displayName = 'Consent Flow Webhook Signing API';

	icon = { light: 'file:../icons/sbl.svg', dark: 'file:../icons/sbl.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-sbl#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The secret webhook key issued by the consent flow service',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional. Deliveries signed with this key are accepted too, so that nothing is refused while the secret is rotated. To rotate: put the new key in Signing Secret and the old one here, keep it until the service signs with the new key, then clear this field.',
		},
		{
			displayName: 'Signature Header',
			name: 'signatureHeader',
			type: 'string',
			default: '',
			placeholder: 'e.g. x-acme-sbl-signature',
			description: 'The header carrying the signature; empty accepts any x-*-sbl-signature header',
		},
	];
}
