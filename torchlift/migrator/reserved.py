"""Attribute names a LightningModule already has (Lightning 2.x + nn.Module).

Copied from dir(lightning.pytorch.LightningModule); a user variable with one of these names is
stored under `<name>_` so it cannot shadow a hook, a property or a method.
"""

RESERVED_ATTRIBUTES = frozenset("""
    CHECKPOINT_HYPER_PARAMS_KEY CHECKPOINT_HYPER_PARAMS_NAME CHECKPOINT_HYPER_PARAMS_TYPE 
    T_destination add_module all_gather apply automatic_optimization backward bfloat16 
    buffers call_super_init children clip_gradients compile configure_callbacks 
    configure_gradient_clipping configure_model configure_optimizers configure_sharded_model 
    cpu cuda current_epoch device device_mesh double dtype dump_patches eval 
    example_input_array extra_repr fabric float forward freeze get_buffer get_extra_state 
    get_parameter get_submodule global_rank global_step half hparams hparams_initial ipu 
    load_from_checkpoint load_state_dict local_rank log log_dict logger loggers 
    lr_scheduler_step lr_schedulers manual_backward modules mtia named_buffers named_children 
    named_modules named_parameters on_after_backward on_after_batch_transfer 
    on_before_backward on_before_batch_transfer on_before_optimizer_step on_before_zero_grad 
    on_fit_end on_fit_start on_gpu on_load_checkpoint on_predict_batch_end 
    on_predict_batch_start on_predict_end on_predict_epoch_end on_predict_epoch_start 
    on_predict_model_eval on_predict_start on_save_checkpoint on_test_batch_end 
    on_test_batch_start on_test_end on_test_epoch_end on_test_epoch_start on_test_model_eval 
    on_test_model_train on_test_start on_train_batch_end on_train_batch_start on_train_end 
    on_train_epoch_end on_train_epoch_start on_train_start on_validation_batch_end 
    on_validation_batch_start on_validation_end on_validation_epoch_end 
    on_validation_epoch_start on_validation_model_eval on_validation_model_train 
    on_validation_model_zero_grad on_validation_start optimizer_step optimizer_zero_grad 
    optimizers parameters predict_dataloader predict_step prepare_data print 
    register_backward_hook register_buffer register_forward_hook register_forward_pre_hook 
    register_full_backward_hook register_full_backward_pre_hook 
    register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module 
    register_parameter register_state_dict_post_hook register_state_dict_pre_hook 
    remove_ignored_hparams requires_grad_ save_hyperparameters set_extra_state set_submodule 
    setup share_memory state_dict strict_loading teardown test_dataloader test_step to 
    to_empty to_onnx to_tensorrt to_torchscript toggle_optimizer toggled_optimizer train 
    train_dataloader trainer training_step transfer_batch_to_device type unfreeze 
    untoggle_optimizer val_dataloader validation_step xpu zero_grad
    model trainer fabric device dtype
    """.split())
