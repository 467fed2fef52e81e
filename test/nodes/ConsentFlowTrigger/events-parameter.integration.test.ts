// The Events parameter, also when an expression gives it as a string: it names a list of known
// values (an array, or one string separated by commas; spaces around values are ignored). An
// unknown value is a misconfiguration: the delivery is answered 500 naming the parameter and
// the value, so the service retries instead of the delivery being lost silently.
import { envelope, post, postSigned } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

const status = (json: unknown) => (json as { status?: string }).status;

describe('Events given as a string or an array', () => {
	it('a single event as a string matches that event only, not events it is a prefix of', async () => {
		const h = await harness({ parameters: { events: 'consent.timedOutDataFailed' } });
		expect(status((await postSigned(h.url, envelope('consent.timedOut'))).json)).toBe('filtered');
		expect(status((await postSigned(h.url, envelope('consent.data'))).json)).toBe('filtered');
		expect(status((await postSigned(h.url, envelope('consent.timedOutDataFailed'))).json)).toBe(
			'emitted',
		);
		expect(h.executions).toHaveLength(1);
	});

	it('"consent.data" as a string does not select Unrecognised or other events', async () => {
		const h = await harness({ parameters: { events: 'consent.data' } });
		expect(status((await postSigned(h.url, 'data')).json)).toBe('filtered');
		expect(status((await postSigned(h.url, envelope('consent.dataFailed'))).json)).toBe('filtered');
		expect(status((await postSigned(h.url, envelope('consent.data'))).json)).toBe('emitted');
	});

	it('a comma-separated string, with spaces', async () => {
		const h = await harness({
			parameters: { events: ' consent.data , income.dataFailed,unrecognised ' },
		});
		expect(status((await postSigned(h.url, envelope('consent.data'))).json)).toBe('emitted');
		expect(status((await postSigned(h.url, envelope('income.dataFailed'))).json)).toBe('emitted');
		expect(status((await postSigned(h.url, 'not json')).json)).toBe('emitted');
		expect(status((await postSigned(h.url, envelope('consent.created'))).json)).toBe('filtered');
		// outputs follow the selection: Data, Income Data Failed, Unrecognised
		expect(emitted(h, undefined, 3).index).toBe(2);
	});

	it('an array with spaces around values', async () => {
		const h = await harness({ parameters: { events: [' tax.dataFailed', 'user.timedOut '] } });
		expect(status((await postSigned(h.url, envelope('tax.dataFailed'))).json)).toBe('emitted');
		expect(status((await postSigned(h.url, envelope('user.timedOut'))).json)).toBe('emitted');
		expect(status((await postSigned(h.url, envelope('consent.data'))).json)).toBe('filtered');
	});

	it('an empty string selects nothing (like an empty selection)', async () => {
		const h = await harness({ parameters: { events: '' } });
		expect(status((await postSigned(h.url, envelope('consent.data'))).json)).toBe('filtered');
	});
});

describe('an unknown Events value is a misconfiguration: 500, nothing runs or is remembered', () => {
	it.each([
		['a misspelt event in a string', 'consent.dat', /Events.*"consent\.dat"/],
		[
			'a misspelt event in an array',
			['consent.data', 'consent.acepted'],
			/Events.*"consent\.acepted"/,
		],
		[
			'an event name inside a longer string',
			'consent.data;tax.dataFailed',
			/Events.*"consent\.data;tax\.dataFailed"/,
		],
		['a number', 42, /Events.*42/],
	])('%s', async (_label, events, message) => {
		const h = await harness({ parameters: { events } });
		const body = envelope('consent.data');
		const response = await postSigned(h.url, body);
		expect(response.status).toBe(500);
		expect(response.json).toMatchObject({ received: false, status: 'misconfigured' });
		expect((response.json as { message: string }).message).toMatch(message);
		expect(h.executions).toHaveLength(0);
		expect(h.db.writes).toBe(0);
		// Unsigned deliveries still get 401 (nothing about the configuration leaks).
		expect((await post(h.url, body)).status).toBe(401);
	});
});
