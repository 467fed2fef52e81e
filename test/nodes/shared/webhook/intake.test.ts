/**
 * intake.ts without HTTP: the facts decide.ts answers on, from one request. A stopping process
 * takes nothing; an unverified request carries no delivery facts; a verified envelope
 * (consent-flow-service.md, "Webhook envelope") gives its event and webhookId, and its timestamp
 * decides "stale" only when the node sets a maximum age.
 */
import { createHmac } from 'crypto';
import type * as IntakeModule from '../../../../nodes/shared/webhook/intake';
import { freshModules } from '../../../support/fresh-modules';
import { fakeWebhook } from '../../../support/webhook-context';

const SECRET = 'dummy-current-secret-0123456789';
const HEADER = 'x-acme-sbl-signature';
const CREDENTIAL = { secret: SECRET, signatureHeader: '' };
const RULES = { maxAgeSeconds: 0 };
const hmac = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');

function signed(body: string, headers: Record<string, string> = {}) {
	return fakeWebhook({ headers: { [HEADER]: hmac(body), ...headers }, rawBody: body }, CREDENTIAL);
}

const envelope = (fields: Record<string, unknown>) =>
	JSON.stringify({
		webhookId: 'w-1',
		event: 'consent.created',
		payload: { flow: 'f-1' },
		...fields,
	});

let intake: typeof IntakeModule.intake;
/** A new n8n process: a fresh copy of intake.ts and the credential cache it reads through. */
function newProcess(): void {
	({ intake } = freshModules(() =>
		jest.requireActual<typeof IntakeModule>('../../../../nodes/shared/webhook/intake'),
	));
}
beforeEach(newProcess);

describe('intake', () => {
	test('a stopping process: closing, nothing verified, the credential not even read', async () => {
		const body = envelope({});
		const hook = fakeWebhook(
			{ headers: { [HEADER]: hmac(body) }, rawBody: body, closing: true },
			CREDENTIAL,
		);
		const { facts, taken } = await intake(hook.ctx, 'trigger', RULES);
		expect(facts).toMatchObject({
			entry: 'trigger',
			closing: true,
			verified: false,
			delivery: null,
		});
		expect(taken).toBeUndefined();
		expect(hook.reads()).toBe(0);
	});

	test('a bad signature: not verified, no delivery facts, nothing taken', async () => {
		const hook = fakeWebhook(
			{ headers: { [HEADER]: 'ab'.repeat(32) }, rawBody: envelope({}) },
			CREDENTIAL,
		);
		const { facts, taken } = await intake(hook.ctx, 'resume', RULES);
		expect(facts).toMatchObject({
			entry: 'resume',
			closing: false,
			verified: false,
			delivery: null,
		});
		expect(taken).toBeUndefined();
	});

	test('a verified envelope: its event and webhookId, recognised, taken with its exact bytes', async () => {
		const body = envelope({});
		const { facts, taken } = await intake(signed(body).ctx, 'trigger', RULES);
		expect(facts).toMatchObject({
			verified: true,
			stale: false,
			delivery: { event: 'consent.created', webhookId: 'w-1', recognised: true },
		});
		expect(taken?.verified.rawBody.toString('utf8')).toBe(body);
	});

	test('the older envelope (`id`, `type`) is read alike', async () => {
		const body = JSON.stringify({ id: 'w-2', type: 'consent.rejected', payload: {} });
		const { facts } = await intake(signed(body).ctx, 'trigger', RULES);
		expect(facts.delivery).toMatchObject({
			event: 'consent.rejected',
			webhookId: 'w-2',
			recognised: true,
		});
	});

	test('signed but not an envelope: verified, not recognised, with a reason; its size only at the resume URL', async () => {
		const body = '[1,2,3]';
		const atTrigger = await intake(signed(body).ctx, 'trigger', RULES);
		expect(atTrigger.facts.verified).toBe(true);
		expect(atTrigger.facts.delivery?.recognised).toBe(false);
		expect(typeof atTrigger.facts.delivery?.reason).toBe('string');
		expect(atTrigger.facts.delivery).not.toHaveProperty('size');
		newProcess();
		const atResume = await intake(signed(body).ctx, 'resume', RULES);
		expect(atResume.facts.delivery?.size).toBe(body.length);
	});

	test('a timestamp older than the maximum age is stale; without a maximum age it is not judged', async () => {
		const old = envelope({ timestamp: new Date(Date.now() - 600_000).toISOString() });
		const limited = await intake(signed(old).ctx, 'trigger', { ...RULES, maxAgeSeconds: 300 });
		expect(limited.facts.stale).toBe(true);
		newProcess();
		const unlimited = await intake(signed(old).ctx, 'trigger', RULES);
		expect(unlimited.facts.stale).toBe(false);
		newProcess();
		const fresh = envelope({ timestamp: new Date().toISOString() });
		expect(
			(await intake(signed(fresh).ctx, 'trigger', { ...RULES, maxAgeSeconds: 300 })).facts.stale,
		).toBe(false);
	});

	test('an unparsable timestamp under a maximum age counts as stale', async () => {
		const body = envelope({ timestamp: 'yesterday' });
		const { facts } = await intake(signed(body).ctx, 'trigger', { ...RULES, maxAgeSeconds: 300 });
		expect(facts.stale).toBe(true);
	});
});
