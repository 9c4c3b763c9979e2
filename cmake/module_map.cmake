# The module map: every folder of src/ and the folders its files may include ("#include "<folder>/..."), direct
# dependencies only: a module reaching another through a third names it here as well. The software NeuronCore's
# four layers are modules of their own (docs/NEURON.md: each uses only the ones above it); outside it they are one
# module, `neuron`. Checked at every build by cmake/check_module_includes.cmake (an include across a boundary fails
# the build, naming the file and line), which also checks that docs/ARCHITECTURE.md's "depends on" column names
# exactly these modules. Adding a module: a folder, a line here, a row there.
set(NANOTRN_MODULES
    base dtype hw ref neuron/isa neuron/sim neuron/kernels neuron/registry tensor gemm engine autograd ops model io
    tokenizer data optim eval dist recipe icl predict train report export pipeline sweep forecast qa cli)
set(NANOTRN_MODULE_DEPS_base "")
set(NANOTRN_MODULE_DEPS_dtype base)
set(NANOTRN_MODULE_DEPS_hw base dtype)
set(NANOTRN_MODULE_DEPS_ref base)
set(NANOTRN_MODULE_DEPS_neuron/isa base dtype hw)
set(NANOTRN_MODULE_DEPS_neuron/sim base hw neuron/isa)
set(NANOTRN_MODULE_DEPS_neuron/kernels base neuron/isa)
set(NANOTRN_MODULE_DEPS_neuron/registry base dtype ref neuron/isa neuron/sim neuron/kernels)
set(NANOTRN_MODULE_DEPS_tensor base dtype)
set(NANOTRN_MODULE_DEPS_gemm base dtype hw)
set(NANOTRN_MODULE_DEPS_engine base dtype tensor gemm)
set(NANOTRN_MODULE_DEPS_autograd base tensor)
set(NANOTRN_MODULE_DEPS_ops base dtype tensor engine autograd)
set(NANOTRN_MODULE_DEPS_model base engine ops)
set(NANOTRN_MODULE_DEPS_io base tensor)
set(NANOTRN_MODULE_DEPS_tokenizer base)
set(NANOTRN_MODULE_DEPS_data base io tokenizer)
set(NANOTRN_MODULE_DEPS_optim base dtype tensor gemm)
set(NANOTRN_MODULE_DEPS_eval base tensor model)
set(NANOTRN_MODULE_DEPS_dist base tensor autograd)
set(NANOTRN_MODULE_DEPS_recipe base dtype data model optim)
set(NANOTRN_MODULE_DEPS_icl base io data tokenizer engine ops model)
set(NANOTRN_MODULE_DEPS_predict base dtype hw neuron data model recipe)
set(NANOTRN_MODULE_DEPS_train base engine autograd ops io tokenizer data model optim eval dist recipe)
set(NANOTRN_MODULE_DEPS_report base hw tokenizer data model eval recipe predict)
set(NANOTRN_MODULE_DEPS_export base engine io tokenizer model recipe)
set(NANOTRN_MODULE_DEPS_pipeline base hw gemm engine tokenizer data model dist recipe icl predict train report)
set(NANOTRN_MODULE_DEPS_sweep base hw dist recipe predict train report pipeline)
set(NANOTRN_MODULE_DEPS_forecast base hw data model recipe icl predict report pipeline sweep)
set(NANOTRN_MODULE_DEPS_qa base dtype hw neuron gemm engine autograd io model recipe predict train report)
set(NANOTRN_MODULE_DEPS_cli everything)
