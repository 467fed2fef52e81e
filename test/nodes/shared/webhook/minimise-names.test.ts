/**
 * Minimise Personal Data at the edges of its name rules: which keys and header names count, and
 * which values under an account key are only account numbers. Each case is one a careless rule
 * gets wrong in one direction or the other (a key that only ends like an identity key, a header
 * value that only contains "eyJ", an account key whose value carries more than digits).
 */
import { minimiseHeaders, minimiseValues } from '../../../../nodes/shared/webhook/minimise';
import { syntheticNationalId } from '../../../support/synthetic-ids';

const ID = syntheticNationalId(1);

describe('keys', () => {
	test('keys that mask alike stay apart, numbered in order: (2), (3)', () => {
		const keys = [1, 2, 3].map((n) => syntheticNationalId(n));
		const item = Object.fromEntries(keys.map((key, n) => [key, n]));
		const out = minimiseValues(item, 'leaveOut');
		const names = Object.keys(out);
		expect(names).toHaveLength(3);
		expect(names[1]).toBe(`${names[0]} (2)`);
		expect(names[2]).toBe(`${names[0]} (3)`);
		expect(Object.values(out)).toEqual([0, 1, 2]);
	});

	test('only the identity keys themselves: a key that ends like one (rapid, cupid) is searched, not dropped', () => {
		const out = minimiseValues({ rapid: true, cupid: 'yes', pid: 'x' }, 'leaveOut');
		expect(out).toEqual({ rapid: true, cupid: 'yes' });
	});

	test('the authorization code by its names only: a key that starts like one (authCodeLength) stays', () => {
		const out = minimiseValues({ authCodeLength: 6, auth_code: 'c' }, 'mask');
		expect(out).toEqual({ authCodeLength: 6 });
	});
});

describe('account keys', () => {
	test.each([
		[`${ID}-x`, 'digits then a word'],
		[`ref:${ID}`, 'a word then digits'],
		[`${ID} and more`, 'digits then words'],
	])('%j (%s) is not only an account number: it is searched', (value) => {
		const out = minimiseValues({ accountNumber: value }, 'mask') as { accountNumber: string };
		expect(out.accountNumber).not.toContain(ID);
		expect(out.accountNumber).toContain(`*********${ID.slice(-2)}`);
	});
});

describe('headers named in Additional Headers', () => {
	test.each(['auth-user', 'x-passwd', 'apikey', 'x-app-key'])(
		'%s names a credential: left out even when asked for',
		(name) => {
			expect(minimiseHeaders({ [name]: 'v' }, 'keep', [name])).toEqual({});
		},
	);

	test('an upper-case UUID is an id, not a token; "eyJ" inside a word is not a JWT', () => {
		const headers = {
			'x-request-id': '3F2504E0-4F89-41D3-9A0C-0305E82C3301',
			'x-note': 'monkeyJumped.over',
		};
		const added = Object.keys(headers);
		expect(minimiseHeaders(headers, 'keep', added)).toEqual(headers);
	});
});
