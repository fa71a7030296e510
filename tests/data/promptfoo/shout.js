// A second system: the prompt's last line, upper-cased.
class Shout {
  id() { return 'shout'; }
  async callApi(prompt) { return { output: prompt.split('\n').pop().toUpperCase() }; }
}
module.exports = Shout;
