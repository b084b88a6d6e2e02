// The README's first command ends here until apps/demo exists: a smoke example of @org/core's contracts.
import {
  assertToolCallPairing,
  assertToolChoiceOffered,
  InvalidToolChoiceError,
  OrgError,
  ToolChoice,
  toToolChoice,
} from '../packages/core/dist/index.js';

const tools = ['get_weather', 'search_web'];
console.log('toToolChoice("any")      ->', JSON.stringify(toToolChoice('any')));
console.log('ToolChoice.tool(...)     ->', JSON.stringify(ToolChoice.tool('get_weather')));
try {
  assertToolChoiceOffered(ToolChoice.tool('get_wether'), tools);
} catch (error) {
  if (!InvalidToolChoiceError.isInstance(error)) throw error;
  console.log(`typed error (${error.code}) ->`, error.message);
}
try {
  assertToolCallPairing([
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', toolName: 'get_weather', arguments: '{}' }],
    },
    { role: 'user', content: 'Hello?' },
  ]);
} catch (error) {
  if (!OrgError.isInstance(error)) throw error;
  console.log(`typed error (${error.code}) ->`, error.message);
}
console.log('@org/core smoke example: ok');
