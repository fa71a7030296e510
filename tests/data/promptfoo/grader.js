// A scripted grader for llm-rubric: passes an answer that names the expected city.
class Grader {
  id() { return 'local-grader'; }
  async callApi(prompt) {
    const good = /Paris|Rome/.test(prompt) && !/PARIS|ROME/.test(prompt);
    return { output: JSON.stringify({ pass: good, score: good ? 0.9 : 0.2, reason: good ? 'names the capital' : 'shouts or misses the capital' }) };
  }
}
module.exports = Grader;
