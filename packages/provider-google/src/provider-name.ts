/** The provider name: `LanguageModel.provider`, the key of `providerOptions`, and the `provider` of every error. */
export const PROVIDER = 'google';
