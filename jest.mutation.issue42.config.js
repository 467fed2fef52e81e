// Jest config for stryker.issue42.mjs only (issue 42): the tests of the value search, Minimise
// Personal Data, the redactor, rotation.ts and cloudevents.ts.
const mutation = require('./jest.mutation.config');

module.exports = {
	...mutation,
	testMatch: [
		'<rootDir>/test/nodes/shared/identity-search.property.test.ts',
		'<rootDir>/test/nodes/shared/webhook/minimise*.test.ts',
		'<rootDir>/test/nodes/shared/transport/{redaction,redaction-forms,redaction-values,credential-secrets,hostile}.test.ts',
		'<rootDir>/test/nodes/shared/{personal,personal.property,validation-personal}.test.ts',
		'<rootDir>/test/nodes/ConsentFlowTrigger/{rotation,cloudevents,unsigned-facts,minimise}.test.ts',
	],
};
