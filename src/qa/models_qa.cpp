// The model zoo's quality table. See models_qa.h.
#include "qa/models_qa.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "autograd/tape.h"
#include "base/error.h"
#include "base/file.h"
#include "base/format.h"
#include "base/json_parse.h"
#include "hw/catalog.h"
#include "io/csv.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "predict/predictor.h"
#include "report/page.h"
#include "report/svg_chart.h"
#include "train/optimizers.h"
#include "train/token_source.h"

namespace nanotrn::qa {

namespace fs = std::filesystem;

bool ModelsQaRow::priced() const {
  return !prices.empty() && std::all_of(prices.begin(), prices.end(), [](const DevicePrice& p) { return p.fits; });
}

bool ModelsQaRow::gradient_ok() const { return std::isfinite(gradient_error) && gradient_error <= 5e-2; }

std::vector<std::string> config_files(const std::string& dir) {
  std::error_code ec;
  check(fs::is_directory(dir, ec), "qa models: " + dir + " is not a folder of Hugging Face config.json files");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  check(!files.empty(), "qa models: no *.json files in " + dir);
  return files;
}

model::GptConfig scaled_down(const model::GptConfig& c) {
  model::GptConfig s = c;
  s.vocab_size = 256;
  s.depth = 2;
  s.model_dim = 64;
  s.head_dim = 16;
  const int64_t group = std::min<int64_t>(c.n_head / c.n_kv_head, 4);
  s.n_kv_head = std::min<int64_t>(c.n_kv_head, 2);
  s.n_head = s.n_kv_head * group;
  s.mlp_hidden = std::max<int64_t>(16, std::llround(static_cast<double>(c.mlp_hidden) / c.model_dim * 64.0));
  if (c.window > 0) s.window = 8;
  if (c.experts > 0) {  // at most 8 experts, at most half of them per token, so the routing still chooses
    s.experts = std::min<int64_t>(c.experts, 8);
    s.experts_per_token = std::max<int64_t>(1, std::min(c.experts_per_token, s.experts / 2));
  }
  // Every gradient non-trivial at step 0 (zero output projections would zero the MLP's and the gains'), and a tied
  // head's logits not saturated by wte's unit init (as tests/train/parity_test.cpp's variants).
  s.init.attn_proj = s.init.mlp_proj = 0.5f;
  s.init.lm_head_std = 0.3f;
  if (s.tie_embeddings) s.init.wte_std = 0.3f;
  return model::resolve(s);
}

namespace {

// "LlamaForCausalLM", from the file as written (also for a config the reader refuses); "" when it has none.
std::string architecture_of(const std::string& file) {
  try {
    const nlohmann::json j = parse_json(read_file(file));
    if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
        j["architectures"][0].is_string())
      return j["architectures"][0].get<std::string>();
  } catch (const std::exception&) {
  }
  return "";
}

DevicePrice price_on(const recipe::Recipe& r, const hw::Catalog& catalog, const std::string& device) {
  DevicePrice d;  // (assigned, not designated: GCC 12 warns about the members a designated initializer leaves out)
  d.device = device;
  try {
    const predict::Prediction p = predict::predict(r, catalog.find(device));
    const predict::PhasePrediction& last = p.phases.back();
    d.fits = true;
    d.step_s = last.time.step_s;
    d.mfu = last.mfu;
    double kernels = 0, all = 0;
    for (const auto& [method, seconds] : predict::step_breakdown(last.time).methods) {
      all += seconds;
      if (method == "software NeuronCore") kernels += seconds;
    }
    d.kernel_share = all > 0 ? kernels / all : 0;
  } catch (const Error& e) {
    d.refusal = e.message();
  }
  return d;
}

// The PyTorch parity tests (tests/train/parity_test.cpp) that between them cover every feature of this block ("" when
// one is covered by none): the baseline; the Llama block with SwiGLU, QK-norm gains, a tied head, a window pattern and
// biases on q, k, v and o; GELU in the Llama block without QK-norm, with biases on q, k and v; GPT-2's block
// (LayerNorm, learned positions, MLP biases).
std::string parity_test_of(const model::GptConfig& c) {
  const std::string baseline = "LossGradientsAndTenMuonAdamWSteps",
                    llama = "LlamaBlockSwigluTiedHeadAndAlternatingWindows", gelu = "GeluMlpInTheLlamaBlock",
                    moe = "MixtureOfExpertsTopTwoWithTheLoadBalancingLoss",
                    gpt2 = "Gpt2BlockLayerNormLearnedPositionsAndBiases", geglu = "GegluMlpInTheLlamaBlock",
                    oss = "GptOssBlockSinksClampedSwigluAndExpertBiases";
  const bool baseline_mlp = c.activation == model::Activation::relu2 || c.activation == model::Activation::leaky_relu2;
  std::set<std::string> tests;
  if (c.experts > 0) {
    if (c.activation != model::Activation::swiglu || !c.norm_weights) return "";
    tests.insert(moe);
    if (c.qk_norm || c.tie_embeddings) tests.insert(llama);
  } else if (!c.norm_weights) {
    if (!baseline_mlp || c.tie_embeddings) return "";  // Hugging Face features in the baseline block: no test
    tests.insert(baseline);
  } else if (c.activation == model::Activation::swiglu) {
    tests.insert(llama);
  } else if (c.activation == model::Activation::geglu) {
    tests.insert(geglu);
    if (c.qk_norm || c.tie_embeddings) tests.insert(llama);
  } else if (c.activation == model::Activation::gelu) {
    tests.insert(gelu);
    if (c.qk_norm || c.tie_embeddings) tests.insert(llama);
  } else {
    return "";
  }
  if (c.window > 0) tests.insert(llama);
  if (c.attention_bias == model::AttentionBias::qkv) tests.insert(gelu);
  if (c.attention_bias == model::AttentionBias::qkvo) tests.insert(llama);
  if (c.norm == model::NormKind::layer || c.learned_positions > 0 || (c.mlp_bias && c.experts == 0)) tests.insert(gpt2);
  if (c.attention_sinks || c.swiglu_limit > 0 || (c.mlp_bias && c.experts > 0)) tests.insert(oss);
  std::string out;
  for (const std::string& t : tests) out += (out.empty() ? "" : " + ") + t;
  return out;
}

struct Batch {
  Tensor ids, targets;
};

Batch next_batch(train::TokenSource& src, int64_t rows, int64_t T) {
  std::vector<int32_t> ids(static_cast<size_t>(rows * T)), targets(ids.size());
  src.next(rows, T, ids.data(), targets.data());
  return {Tensor::from_ints({rows, T}, ids), Tensor::from_ints({rows, T}, targets)};
}

// The parameters the gradient check perturbs: the first block's MLP input matrices, norm gains and attention biases
// (model.attention_bias); with experts the
// last block's expert input matrices and the final gain instead, as those do not move any router's input (the loss
// jumps where a token's top-k changes, which central differences across the jump would read as a gradient).
bool checked(const model::GptConfig& c, const std::string& name) {
  if (c.experts > 0) {
    const std::string last = "blocks." + std::to_string(c.depth - 1) + ".mlp.experts.";
    const bool input = name.size() > 5 && (name.ends_with(".c_fc") || name.ends_with(".c_gate"));
    return (name.rfind(last, 0) == 0 && input) || name == "norm_f";
  }
  return name == "blocks.0.mlp.c_fc" || name == "blocks.0.mlp.c_gate" || name == "blocks.0.attn_norm" ||
         name == "blocks.0.attn.q_norm" || name == "blocks.0.attn.c_q_bias" || name == "blocks.0.attn.c_proj_bias" ||
         name == "blocks.0.attn_norm_bias" || name == "blocks.0.mlp.c_fc_bias";
}

// Central differences of the loss against autograd, on the 4 largest gradient elements of each checked parameter.
double gradient_error(model::Gpt& gpt, Ctx& ctx, Tape& tape, const Batch& b) {
  const Tensor loss = gpt.loss(ctx, b.ids, b.targets);
  tape.backward(loss);
  double worst = 0, scale = 0;
  for (model::Parameter& p : gpt.parameters()) {
    if (!checked(gpt.config(), p.name)) continue;
    const std::vector<float> g = p.value.grad().to_vector();
    std::vector<size_t> order(g.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::partial_sort(order.begin(), order.begin() + 4, order.end(),
                      [&g](size_t a, size_t c) { return std::fabs(g[a]) > std::fabs(g[c]); });
    float* w = p.value.data<float>();
    for (size_t k = 0; k < 4; k++) {
      const size_t i = order[k];
      const float keep = w[i], h = 1e-2f;
      NoGradGuard no_grad(ctx);
      w[i] = keep + h;
      const double up = gpt.loss(ctx, b.ids, b.targets).item();
      w[i] = keep - h;
      const double down = gpt.loss(ctx, b.ids, b.targets).item();
      w[i] = keep;
      worst = std::max(worst, std::fabs((up - down) / (2.0 * h) - g[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(g[i])));
    }
  }
  for (model::Parameter& p : gpt.parameters()) p.value.zero_grad();
  return scale > 0 ? worst / scale : std::numeric_limits<double>::infinity();
}

std::string shape_text(const model::GptConfig& s) {
  return "d" + std::to_string(s.depth) + " w" + std::to_string(s.model_dim) + ", " + std::to_string(s.n_head) + "/" +
         std::to_string(s.n_kv_head) + " heads of " + std::to_string(s.head_dim) + ", MLP " +
         std::to_string(s.mlp_hidden) + (s.window > 0 ? ", window " + std::to_string(s.window) : "");
}

// Builds the scaled-down instance, checks its gradient and trains it (the row's host fields).
void run_on_host(ModelsQaRow& row, const model::GptConfig& config, const ModelsQaOptions& o, Engine& engine) {
  const model::GptConfig s = scaled_down(config);
  row.host_shape = shape_text(s);
  Tape tape;
  Ctx ctx{engine, &tape};
  std::unique_ptr<model::Gpt> gpt;
  try {
    gpt = std::make_unique<model::Gpt>(ctx, s, o.seed);
  } catch (const Error& e) {
    row.host_refusal = e.message();
    return;
  }
  row.host_built = true;
  const std::unique_ptr<train::TokenSource> src =
      train::make_pattern_source(static_cast<int32_t>(s.vocab_size), o.seed);
  row.gradient_error = gradient_error(*gpt, ctx, tape, next_batch(*src, 4, 32));
  recipe::OptimConfig optim = o.launch.optim;
  if (s.tie_embeddings) optim.embedding_lr = 0.02f;
  train::OptimizerSet opt(engine.gemm(), *gpt, optim);
  bool finite = true;
  for (int step = 0; step < o.host_steps; step++) {
    const Batch b = next_batch(*src, 8, 64);
    const Tensor loss = gpt->loss(ctx, b.ids, b.targets);
    const double value = loss.item();
    finite = finite && std::isfinite(value);
    if (step == 0) row.first_loss = value;
    row.last_loss = value;
    tape.backward(loss);
    opt.schedule(step, 1.0, static_cast<double>(step) / o.host_steps);
    opt.step();
    opt.zero_grad();
  }
  row.trains = finite && row.last_loss < row.first_loss - 0.5;
}

ModelsQaRow run_one(const std::string& file, const ModelsQaOptions& o, const hw::Catalog& catalog, Engine& engine) {
  ModelsQaRow row;
  row.file = fs::path(file).filename().string();
  row.architecture = architecture_of(file);
  model::HfModel hf;
  try {
    hf = model::read_hf_config(file);
  } catch (const Error& e) {
    row.refusal = e.message();
    return row;
  }
  row.read = true;
  row.architecture = hf.architecture;
  row.params = model::count_params(hf.config).total();
  row.parity_test = parity_test_of(hf.config);
  recipe::Recipe r = o.launch;
  r.model = hf.config;
  r.name = row.file + " at " + o.launch_name + "'s launch";
  for (const std::string& d : o.devices) row.prices.push_back(price_on(r, catalog, d));
  if (o.host_steps > 0) run_on_host(row, hf.config, o, engine);
  return row;
}

std::string percent(int64_t part, int64_t all) {
  return all == 0 ? "-" : format_number("%.0f%%", 100.0 * static_cast<double>(part) / static_cast<double>(all));
}

// A table as text cells: the header, then the rows; rendered as markdown or HTML.
struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

TextTable class_table(const std::vector<ModelsQaRow>& rows) {
  std::map<std::string, std::vector<const ModelsQaRow*>> by_class;
  for (const ModelsQaRow& r : rows) by_class[r.architecture.empty() ? "(unreadable)" : r.architecture].push_back(&r);
  TextTable t{{"architecture class", "configs", "read", "priced (fits every device)", "op time by tile kernels (mean)",
               "host trains", "gradient check", "PyTorch parity test"},
              {}};
  for (const auto& [cls, rs] : by_class) {
    int64_t read = 0, priced = 0, trains = 0, grad = 0, n_share = 0;
    double share = 0;
    std::set<std::string> parity;
    for (const ModelsQaRow* r : rs) {
      read += r->read;
      priced += r->priced();
      trains += r->trains;
      grad += r->gradient_ok();
      for (const DevicePrice& p : r->prices)
        if (p.fits) share += p.kernel_share, n_share++;
      if (!r->parity_test.empty()) parity.insert(r->parity_test);
    }
    const auto n = static_cast<int64_t>(rs.size());
    std::string tests;
    for (const std::string& p : parity) tests += (tests.empty() ? "" : ", ") + p;
    t.rows.push_back(
        {cls, std::to_string(n), percent(read, n), percent(priced, n),
         n_share ? format_number("%.0f%%", 100.0 * share / static_cast<double>(n_share)) : std::string("-"),
         percent(trains, n), percent(grad, n), tests.empty() ? "none" : tests});
  }
  return t;
}

// "does not fit one rank's HBM on trn2: weights ..., total 237.62 GiB of 96.00 GiB" out of predict's refusal (the CSV
// keeps it whole, with the change that would fit).
std::string short_refusal(const std::string& why) {
  const size_t from = why.find("does not fit");
  std::string s = from == std::string::npos ? why : why.substr(from);
  const size_t end = s.find("; ");
  return end == std::string::npos ? s : s.substr(0, end);
}

std::string price_cell(const DevicePrice& p) {
  return p.fits ? format_number("%.3g s", p.step_s) + ", MFU " + format_number("%.1f%%", 100 * p.mfu) + ", kernels " +
                      format_number("%.0f%%", 100 * p.kernel_share)
         : p.refusal.find("does not fit") != std::string::npos ? "does not fit"
                                                               : "refused";
}

}  // namespace

std::vector<ModelsQaRow> run_models_qa(const std::vector<std::string>& files, const ModelsQaOptions& o, Engine& engine,
                                       const std::function<void(const std::string&)>& progress) {
  std::vector<ModelsQaRow> rows;
  const hw::Catalog catalog = hw::builtin_catalog();
  for (const std::string& f : files) {
    rows.push_back(run_one(f, o, catalog, engine));
    if (progress) progress(rows.back().file + ": " + (rows.back().read ? "read" : "refused") + "\n");
  }
  return rows;
}

namespace {

TextTable config_table(const std::vector<ModelsQaRow>& rows, const ModelsQaOptions& o) {
  TextTable t{{"config", "architecture", "params"}, {}};
  for (const std::string& d : o.devices) t.header.push_back(d);
  for (const char* h : {"host instance", "gradient error", "loss (first -> last)", "refusals"}) t.header.push_back(h);
  for (const ModelsQaRow& r : rows) {
    std::string why = r.refusal;
    for (const DevicePrice& p : r.prices)
      if (!p.fits) why += (why.empty() ? "" : "; ") + short_refusal(p.refusal);
    if (!r.host_refusal.empty()) why += (why.empty() ? "host: " : "; host: ") + r.host_refusal;
    std::vector<std::string> cells = {r.file, r.architecture,
                                      r.read ? format_number("%.3g", static_cast<double>(r.params)) : "-"};
    for (size_t i = 0; i < o.devices.size(); i++) cells.push_back(i < r.prices.size() ? price_cell(r.prices[i]) : "-");
    cells.push_back(r.host_built ? r.host_shape : "-");
    cells.push_back(std::isfinite(r.gradient_error) ? format_number("%.2g", r.gradient_error) : "-");
    cells.push_back(std::isfinite(r.first_loss)
                        ? format_number("%.3f", r.first_loss) + " -> " + format_number("%.3f", r.last_loss)
                        : "-");
    cells.push_back(why);
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string markdown(const TextTable& t) {
  std::string out = "|", rule = "|";
  for (const std::string& h : t.header) out += " " + h + " |", rule += "---|";
  out += "\n" + rule + "\n";
  for (const std::vector<std::string>& row : t.rows) {
    out += "|";
    for (const std::string& c : row) out += " " + c + " |";
    out += "\n";
  }
  return out;
}

std::string html(const TextTable& t) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : t.header) out += "<th>" + report::xml_escape(h) + "</th>";
  out += "</tr>\n";
  for (const std::vector<std::string>& row : t.rows) {
    out += "<tr>";
    for (const std::string& c : row) out += report::plain_cell(c);
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string caption(const ModelsQaOptions& o) {
  std::string devices;
  for (const std::string& d : o.devices) devices += (devices.empty() ? "" : ", ") + d;
  return "Priced at " + o.launch_name + "'s launch, batch and precision on " + devices +
         " (modelled, not measured); host: " + std::to_string(o.host_steps) +
         " steps of a scaled-down instance (measured)";
}

}  // namespace

std::string models_qa_markdown(const std::vector<ModelsQaRow>& rows, const ModelsQaOptions& o) {
  return caption(o) + "\n\n" + markdown(class_table(rows)) + "\n" + markdown(config_table(rows, o));
}

std::string models_qa_html(const std::vector<ModelsQaRow>& rows, const ModelsQaOptions& o) {
  return report::html_page("Model zoo QA", caption(o),
                           "<h2>Per architecture class</h2>\n" + html(class_table(rows)) +
                               "<h2>Per configuration</h2>\n" + html(config_table(rows, o)));
}

std::string models_qa_csv(const std::vector<ModelsQaRow>& rows) {
  std::string t =
      "config,architecture,read,refusal,params,device,fits,device_refusal,step_s,mfu,kernel_share,host_built,"
      "host_refusal,host_shape,gradient_error,first_loss,last_loss,trains,parity_test\n";
  auto num = [](double v) { return std::isfinite(v) ? format_number("%.6g", v) : std::string(); };
  for (const ModelsQaRow& r : rows) {
    std::vector<DevicePrice> prices = r.prices;
    if (prices.empty()) prices.push_back({});
    for (const DevicePrice& p : prices) {
      t += io::csv_field(r.file) + "," + io::csv_field(r.architecture) + "," + (r.read ? "1" : "0") + "," +
           io::csv_field(r.refusal) + "," + std::to_string(r.params) + "," + io::csv_field(p.device) + "," +
           (p.fits ? "1" : "0") + "," + io::csv_field(p.refusal) + "," + num(p.step_s) + "," + num(p.mfu) + "," +
           num(p.kernel_share) + "," + (r.host_built ? "1" : "0") + "," + io::csv_field(r.host_refusal) + "," +
           io::csv_field(r.host_shape) + "," + num(r.gradient_error) + "," + num(r.first_loss) + "," +
           num(r.last_loss) + "," + (r.trains ? "1" : "0") + "," + io::csv_field(r.parity_test) + "\n";
    }
  }
  return t;
}

}  // namespace nanotrn::qa
