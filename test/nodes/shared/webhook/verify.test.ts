/**
 * verify.ts without HTTP: a delivery is taken only when one of its signature headers is the hex
 * HMAC-SHA256 of its exact bytes under the current or the previous secret (consent-flow-service.md,
 * "Signature"); anything else, a credential n8n cannot read included, gives no delivery (fails
 * closed). node:crypto is the oracle.
 */
import { createHmac } from 'crypto';
import type * as VerifyModule from '../../../../nodes/shared/webhook/verify';
import { freshModules } from '../../../support/fresh-modules';
import { fakeWebhook } from '../../../support/webhook-context';

const SECRET = 'dummy-current-secret-0123456789';
const PREVIOUS = 'dummy-previous-secret-012345678';
const HEADER = 'x-acme-sbl-signature';
const BODY = '{"webhookId":"w-1","event":"consent.created","payload":{}}';
const hmac = (body: string | Buffer, secret: string) =>
	createHmac('sha256', secret).update(body).digest('hex');

let verifiedDelivery: typeof VerifyModule.verifiedDelivery;
/** A new n8n process: a fresh copy of verify.ts and the credential cache it reads through. */
function newProcess(): void {
	({ verifiedDelivery } = freshModules(() =>
		jest.requireActual<typeof VerifyModule>('../../../../nodes/shared/webhook/verify'),
	));
}
beforeEach(newProcess);

describe('verifiedDelivery', () => {
	test('a signature over the exact bytes under the current secret: the delivery, its bytes unchanged', async () => {
		const raw = Buffer.from(BODY, 'utf8');
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac(raw, SECRET) }, rawBody: raw },
			{ secret: SECRET, signatureHeader: '' },
		);
		const delivery = await verifiedDelivery(ctx);
		expect(delivery?.rawBody.equals(raw)).toBe(true);
		expect(delivery?.signedWith).toBe('current');
		expect(delivery?.headers).toEqual({ [HEADER]: hmac(raw, SECRET) });
	});

	test('signed with the previous secret during a rotation: taken, and said so', async () => {
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac(BODY, PREVIOUS) }, rawBody: BODY },
			{ secret: SECRET, signatureHeader: '', previousSecret: PREVIOUS },
		);
		expect((await verifiedDelivery(ctx))?.signedWith).toBe('previous');
	});

	test('the previous secret is not accepted once it is removed from the credential', async () => {
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac(BODY, PREVIOUS) }, rawBody: BODY },
			{ secret: SECRET, signatureHeader: '' },
		);
		expect(await verifiedDelivery(ctx)).toBeUndefined();
	});

	test.each([
		['one byte of the body changed', { [HEADER]: hmac(BODY.replace('w-1', 'w-2'), SECRET) }],
		['signed with another key', { [HEADER]: hmac(BODY, 'dummy-other-secret-0123456789') }],
		['no signature header', {}],
		['an empty signature', { [HEADER]: '' }],
	])('%s: no delivery', async (_name, headers) => {
		const { ctx } = fakeWebhook(
			{ headers, rawBody: BODY },
			{ secret: SECRET, signatureHeader: '' },
		);
		expect(await verifiedDelivery(ctx)).toBeUndefined();
	});

	test('a credential n8n cannot read, or one without a secret: no delivery, whatever the signature', async () => {
		const signed = { headers: { [HEADER]: hmac(BODY, '') }, rawBody: BODY };
		expect(await verifiedDelivery(fakeWebhook(signed, new Error('decrypt')).ctx)).toBeUndefined();
		newProcess();
		expect(await verifiedDelivery(fakeWebhook(signed, { secret: '' }).ctx)).toBeUndefined();
	});

	test('a request whose body n8n did not keep: no delivery', async () => {
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac('', SECRET) } },
			{ secret: SECRET, signatureHeader: '' },
		);
		expect(await verifiedDelivery(ctx)).toBeUndefined();
	});

	test('with a configured header name, a signature under another name does not count', async () => {
		const credential = { secret: SECRET, signatureHeader: 'x-other-sbl-signature' };
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac(BODY, SECRET) }, rawBody: BODY },
			credential,
		);
		expect(await verifiedDelivery(ctx)).toBeUndefined();
		const named = fakeWebhook(
			{ headers: { 'x-other-sbl-signature': hmac(BODY, SECRET) }, rawBody: BODY },
			credential,
		);
		expect((await verifiedDelivery(named.ctx))?.signatureHeader).toBe('x-other-sbl-signature');
	});

	test('the delivery keys of a body without a signed id differ by secret', async () => {
		const { ctx } = fakeWebhook(
			{ headers: { [HEADER]: hmac(BODY, SECRET) }, rawBody: BODY },
			{ secret: SECRET, signatureHeader: '', previousSecret: PREVIOUS },
		);
		const keys = (await verifiedDelivery(ctx))?.bodyKeys() ?? [];
		expect(keys).toHaveLength(2);
		expect(keys[0]).not.toBe(keys[1]);
	});
});
